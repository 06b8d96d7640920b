import { describe, expect, it, vi } from 'vitest';
import { code, fieldCodes, owner, PASSWORD, setup } from '../testing/test-helpers.js';

describe('text that is not well-formed Unicode, and tokens spelled another way', () => {
  it('refuses a lone surrogate in a login email, a tenant name or a device name before any store sees it', async () => {
    const t = setup();
    await owner(t.auth, 'ada@example.com');
    const findByEmail = vi.spyOn(t.stores.users, 'findByEmail');
    expect(await fieldCodes(t.auth.login({ email: 'é\udc00@example.com', password: PASSWORD }))).toEqual([
      'email:invalid_value',
    ]);
    expect(
      await fieldCodes(
        t.auth.register({ email: 'b@example.com', password: PASSWORD, tenantName: 'Café\udc00' }),
      ),
    ).toEqual(['tenantName:invalid_value']);
    expect(
      await fieldCodes(t.auth.login({ email: 'ada@example.com', password: PASSWORD, deviceInfo: 'é\udc00' })),
    ).toEqual(['deviceInfo:invalid_value']);
    expect(findByEmail).not.toHaveBeenCalled();
  });

  it('answers a non-ASCII login email as an unknown one, without a lookup', async () => {
    const t = setup();
    const findByEmail = vi.spyOn(t.stores.users, 'findByEmail');
    expect(await code(t.auth.login({ email: 'ädä@example.com', password: PASSWORD }))).toBe(
      'invalid_credentials',
    );
    expect(findByEmail).not.toHaveBeenCalled();
  });

  it('refuses another spelling of a token (padding, spare bits) without taking it for a replay', async () => {
    const t = setup();
    const ada = await owner(t.auth, 'ada@example.com');
    expect(await code(t.auth.refresh(`${ada.refreshToken}=`))).toBe('invalid_token');
    expect(await code(t.auth.verifyAccessToken(`${ada.accessToken}=`))).toBe('invalid_token');
    const last = ada.refreshToken.at(-1) ?? 'A';
    const sibling = `${ada.refreshToken.slice(0, -1)}${last === 'A' ? 'B' : String.fromCharCode(last.charCodeAt(0) ^ 1)}`;
    expect(await code(t.auth.refresh(sibling))).toBe('invalid_token');
    expect(t.events.some((e) => e.type === 'replay_detected')).toBe(false);
    expect(await code(t.auth.refresh(ada.refreshToken))).toBe('ok');
  });
});
