/** A change that every instance's key cache must drop at once: one key (revoked, rolled), or every key of an account (a new plan). */
export type KeyChange = { readonly keyId: number } | { readonly accountId: number };

/** Whether a cached key is one that `change` names. */
export function isNamedBy(change: KeyChange, key: { readonly id: number; readonly account: { readonly id: number } }): boolean {
  return 'keyId' in change ? key.id === change.keyId : key.account.id === change.accountId;
}

/** A message on the channel, checked before it is believed: anything else is ignored. */
export function parseKeyChange(message: string): KeyChange | null {
  try {
    const value = JSON.parse(message) as Record<string, unknown>;
    if (Number.isSafeInteger(value?.keyId) && (value.keyId as number) > 0) return { keyId: value.keyId as number };
    if (Number.isSafeInteger(value?.accountId) && (value.accountId as number) > 0) return { accountId: value.accountId as number };
  } catch {
    // Not JSON: not ours.
  }
  return null;
}

/**
 * How the keys command tells every running instance of a change: Redis
 * pub/sub when configured, else no one (each instance's cache then lapses
 * within its lifetime). A port; the abstract class is also the DI token.
 */
export abstract class KeyChangeChannel {
  /** True when the change was handed to the shared channel; false when there is none or it could not be reached. */
  abstract publish(change: KeyChange): Promise<boolean>;
  /** Calls `listener` for every change published by anyone from now on, while the channel is reachable. */
  abstract subscribe(listener: (change: KeyChange) => void): void;
  abstract close(): Promise<void>;
}

/** No shared channel: instances learn of a change when their cached answer lapses. */
export class NoKeyChangeChannel extends KeyChangeChannel {
  async publish(): Promise<boolean> {
    return false;
  }

  subscribe(): void {}

  async close(): Promise<void> {}
}
