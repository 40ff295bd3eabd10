import { IsIn } from 'class-validator';

export class UpdateAccountRequest {
  @IsIn(['active', 'trial_expired', 'subscription_canceled'])
  billing_status: 'active' | 'trial_expired' | 'subscription_canceled';
}
