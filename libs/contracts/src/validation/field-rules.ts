import { IsBoolean, IsOptional } from 'class-validator';
import { ToBoolean } from './transforms';

/** Query (or body) `partial=true` on PUT: change only the fields sent. */
export function PartialFlag(): PropertyDecorator {
  return (target, key) => {
    IsOptional()(target, key);
    ToBoolean()(target, key);
    IsBoolean({ message: 'partial must be true or false' })(target, key);
  };
}
