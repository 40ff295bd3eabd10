import 'reflect-metadata';
import { IsInt, IsString, MetadataStorage, registerDecorator, validateSync } from 'class-validator';
import { cacheValidationMetadata } from './metadata-cache';

class Base {
  @IsString()
  name!: string;
}

class Child extends Base {
  @IsInt()
  count!: number;
}

describe('cacheValidationMetadata', () => {
  it('answers the same rules for a class without working them out again', () => {
    const storage = new MetadataStorage();
    const lookup = jest.spyOn(storage, 'getTargetValidationMetadatas');
    for (const target of [Base, Child]) {
      storage.addValidationMetadata({ target, propertyName: 'x', type: 'customValidation', each: false } as never);
    }
    cacheValidationMetadata(storage);
    const first = storage.getTargetValidationMetadatas(Child, '', false, false, undefined);
    const again = storage.getTargetValidationMetadatas(Child, '', false, false, undefined);
    expect(again).toBe(first);
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(storage.groupByPropertyName(first)).toBe(storage.groupByPropertyName(again));
    // Other options are another answer.
    storage.getTargetValidationMetadatas(Child, '', true, false, undefined);
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('forgets its answers when a rule is added later', () => {
    const storage = new MetadataStorage();
    storage.addValidationMetadata({ target: Base, propertyName: 'name', type: 'customValidation', each: false } as never);
    cacheValidationMetadata(storage);
    expect(storage.getTargetValidationMetadatas(Base, '', false, false, undefined)).toHaveLength(1);
    storage.addValidationMetadata({ target: Base, propertyName: 'other', type: 'customValidation', each: false } as never);
    expect(storage.getTargetValidationMetadatas(Base, '', false, false, undefined)).toHaveLength(2);
  });

  it('keeps validation results unchanged on the global storage, also for a rule registered after the first validation', () => {
    cacheValidationMetadata();
    const child = Object.assign(new Child(), { name: 'n', count: 1.5 });
    expect(validateSync(child).map((e) => e.property)).toEqual(['count']);
    expect(validateSync(child).map((e) => e.property)).toEqual(['count']);
    class Late {
      value!: string;
    }
    registerDecorator({ name: 'isLate', target: Late, propertyName: 'value', validator: { validate: (v: unknown) => v === 'late' } });
    expect(validateSync(Object.assign(new Late(), { value: 'early' })).map((e) => e.property)).toEqual(['value']);
  });
});
