import { ApiError, ErrorName, type BillingStatus } from '@crm/contracts';

/** 402 with the spec's error names for accounts whose billing the operator stopped. */
export function assertBilling(status: BillingStatus): void {
  if (status === 'trial_expired') throw new ApiError(ErrorName.TrialExpired);
  if (status === 'subscription_canceled') throw new ApiError(ErrorName.SubscriptionCanceled);
}
