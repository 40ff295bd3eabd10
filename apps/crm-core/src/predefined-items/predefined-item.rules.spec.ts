import { ApiError } from '@crm/contracts';
import { assertRoomForItem, checkItemsGroupable, groupItemIds, itemFields } from './predefined-item.rules';

describe('predefined item rules', () => {
  const current = { name: 'Panel', description: 'Big', cost: 10, price: 20 };

  it('a PUT replaces: absent description, cost and price go back to empty and 0', () => {
    expect(itemFields(current, { name: 'Panel XL' })).toEqual({ name: 'Panel XL', description: '', cost: 0, price: 0 });
    expect(itemFields(null, { name: 'New', price: 5 })).toEqual({ name: 'New', description: '', cost: 0, price: 5 });
  });

  it('partial=true keeps what is not sent; null clears', () => {
    expect(itemFields(current, { partial: true, price: 25 })).toEqual({ ...current, price: 25 });
    expect(itemFields(current, { partial: true, description: null })).toEqual({ ...current, description: '' });
  });

  it('an account keeps at most 1000 items', () => {
    expect(() => assertRoomForItem(999)).not.toThrow();
    expect(() => assertRoomForItem(1000)).toThrow(ApiError);
  });

  it('group members: item_ids before deal_items, lower-cased, each once; unknown 404, grouped 400', () => {
    expect(groupItemIds({ item_ids: ['AB'], deal_items: ['cd'] })).toEqual(['ab']);
    expect(groupItemIds({ deal_items: ['cd'] })).toEqual(['cd']);
    expect(groupItemIds({})).toEqual([]);
    expect(() => groupItemIds({ item_ids: ['a', 'A'] })).toThrow(ApiError);
    expect(() => checkItemsGroupable(['a', 'b'], [{ id: 'a', group_id: null }])).toThrow(
      expect.objectContaining({ errorName: 'resource_not_found' }),
    );
    expect(() => checkItemsGroupable(['a'], [{ id: 'a', group_id: 'g' }])).toThrow(
      expect.objectContaining({ errorName: 'invalid_request_data' }),
    );
    expect(() => checkItemsGroupable(['a'], [{ id: 'a', group_id: null }])).not.toThrow();
  });
});
