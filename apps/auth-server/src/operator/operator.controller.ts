import { Body, Controller, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { parseContract } from '@crm/contracts';
import { AccountProvisioningService } from './account-provisioning.service';
import { CreateAccountRequest, type CreateAccountResponse } from './dto/create-account.request';
import { CreateUserRequest, type CreateUserResponse } from './dto/create-user.request';
import { UpdateAccountRequest } from './dto/update-account.request';
import { OperatorGuard } from './operator.guard';
import { UserProvisioningService } from './user-provisioning.service';

/** Registration "done by the operator" (decisions.md "Operator interface"). */
@Controller('operator')
@UseGuards(OperatorGuard)
export class OperatorController {
  constructor(
    private readonly provisioning: AccountProvisioningService,
    private readonly users: UserProvisioningService,
  ) {}

  @Post('accounts')
  @HttpCode(201)
  createAccount(@Body() body: unknown): Promise<CreateAccountResponse> {
    return this.provisioning.createAccount(parseContract(CreateAccountRequest, body));
  }

  @Patch('accounts/:accountId')
  updateAccount(@Param('accountId') accountId: string, @Body() body: unknown) {
    return this.users.updateAccount(accountId, parseContract(UpdateAccountRequest, body));
  }

  @Patch('accounts/:accountId/settings')
  updateSettings(@Param('accountId') accountId: string, @Body() body: unknown) {
    return this.users.updateSettings(accountId, body);
  }

  @Post('accounts/:accountId/users')
  @HttpCode(201)
  createUser(@Param('accountId') accountId: string, @Body() body: unknown): Promise<CreateUserResponse> {
    return this.users.createUser(accountId, parseContract(CreateUserRequest, body));
  }
}
