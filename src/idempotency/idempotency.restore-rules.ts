import { idProblem, type TableRestoreRules } from '../database/backup/restore-rules';
import { isPositiveSafeInteger } from '../http/validation';
import { isFingerprint, isIdempotencyKey } from './domain/idempotency-key';
import { storedOutcomeProblem } from './domain/idempotency-record.store';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A record as a create leaves it: a key the header would accept, the body's
 * fingerprint, and either a claim still running (no answer yet) or the answer
 * a retry is given, which must be one a replay can send.
 */
export const IDEMPOTENCY_RECORDS_RESTORE_RULES: TableRestoreRules = {
  table: 'idempotency_records',
  rowKey: ['api_key_id'],
  async checkRow(row) {
    const id = idProblem(row, ['api_key_id']);
    if (id) return id;
    if (!isIdempotencyKey(row.idempotency_key)) return 'idempotency_key must be 1 to 255 printable ASCII characters, as the Idempotency-Key header';
    if (!isFingerprint(row.fingerprint)) return 'fingerprint must be a SHA-256 digest in 64 lower-case hex digits';
    if (row.claim_token !== null && !(typeof row.claim_token === 'string' && UUID.test(row.claim_token))) return 'claim_token must be a UUID';
    if (!isPositiveSafeInteger(row.expires_at)) return 'expires_at must be a time in epoch milliseconds';
    if (row.status_code === null && row.response_body === null) return undefined;
    if (row.status_code === null || row.response_body === null) return 'a stored answer has both its status and its body, or neither';
    return storedOutcomeProblem({ status: row.status_code as number, body: String(row.response_body) });
  },
};
