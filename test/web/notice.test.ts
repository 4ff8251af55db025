// The notice a page shows while the class is paused, and after.
import { expect, test } from 'vitest';
import { afterMinute, afterNotice } from '../../web/lib/state/notice.ts';

test('a pause is shown until the server says it is over, or a minute comes through', () => {
  expect(afterNotice('STORAGE_UNAVAILABLE')).toBe('STORAGE_UNAVAILABLE');
  expect(afterNotice('CLUSTER_UNAVAILABLE')).toBe('CLUSTER_UNAVAILABLE');
  expect(afterNotice('RESUMED')).toBeNull();
  for (const pause of ['STORAGE_UNAVAILABLE', 'CLUSTER_UNAVAILABLE', 'TICK_FAILED'])
    expect(afterMinute(pause)).toBeNull();
  // The server stopping is not answered by a minute: the page waits to join again.
  expect(afterMinute('SERVER_STOPPING')).toBe('SERVER_STOPPING');
  expect(afterMinute(null)).toBeNull();
});
