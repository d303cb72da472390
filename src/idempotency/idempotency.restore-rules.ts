import { idProblem, type TableRestoreRules } from '../database/backup/restore-rules';
import { isPositiveSafeInteger } from '../http/validation';
import { isFingerprint, isIdempotencyKey } from './domain/idempotency-key';
import { storedOutcomeProblem } from './domain/idempotency-record.store';

const OPERATION = /^[A-Z]+ \/v1\/[\x21-\x7e]{0,240}$/;

function isAbsoluteUrl(value: unknown): boolean {
  return typeof value === 'string' && value.length <= 2048 && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
}

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
    if (!(typeof row.operation === 'string' && OPERATION.test(row.operation))) return "operation must name a method and a /v1 path, as 'POST /v1/pets'";
    if (row.response_location !== null && !isAbsoluteUrl(row.response_location)) return 'response_location must be an absolute http(s) URL, or null';
    if (!isPositiveSafeInteger(row.expires_at)) return 'expires_at must be a time in epoch milliseconds';
    if (row.status_code === null && row.response_body === null) return undefined;
    if (row.status_code === null || row.response_body === null) return 'a stored answer has both its status and its body, or neither';
    return storedOutcomeProblem({ status: row.status_code as number, body: String(row.response_body) });
  },
};
