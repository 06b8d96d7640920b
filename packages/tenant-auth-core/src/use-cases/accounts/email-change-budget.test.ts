import { describe, expect, it } from 'vitest';
import { owner, PASSWORD, setup } from '../../testing/test-helpers.js';

describe('the notice of an email change (docs/http-api.md, "Rules that change in 1.2 (closing holes found in 1.1)")', () => {
  it("counts against the old address's mailbox budget: eight requests put at most five notices there", async () => {
    const t = setup({ rateLimit: { mailbox: 5 } });
    const ada = await owner(t.auth, 'ada@example.com');
    await t.settle();
    for (let i = 0; i < 8; i++) {
      // A new address each time, so only the old one's budget can stop anything.
      await t.auth.changeEmail(ada.claims, { newEmail: `ada-${i}@new.example`, password: PASSWORD });
    }
    await t.settle();
    const notices = t.inbox.to('ada@example.com').filter((m) => m.subject.includes('about to change'));
    // Registration's verification email was the first of the five.
    expect(notices).toHaveLength(4);
    expect(t.inbox.to('ada@example.com').length).toBeLessThanOrEqual(5);
    // No confirmation went out without its notice.
    const confirmations = t.inbox.messages.filter((m) => m.to.endsWith('@new.example'));
    expect(confirmations).toHaveLength(notices.length);
  });
});
