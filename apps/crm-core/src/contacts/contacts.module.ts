import { Module } from '@nestjs/common';

/** Contacts and companies (issue 3): handlers, services, the contact wrapper. */
@Module({})
export class ContactsModule {}
