import { Module } from '@nestjs/common';
import { ContactRelationshipsHandler } from './contact-relationships.handler';
import { ContactRelationshipsRepository } from './contact-relationships.repository';
import { ContactRelationshipsService } from './contact-relationships.service';

@Module({
  controllers: [ContactRelationshipsHandler],
  providers: [ContactRelationshipsService, ContactRelationshipsRepository],
  exports: [ContactRelationshipsService],
})
export class ContactRelationshipsModule {}
