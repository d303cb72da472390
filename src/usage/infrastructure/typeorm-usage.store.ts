import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { execute, query } from '../../database/statements';
import { DayRange, UsageDay, UsageRow, UsageStore } from '../domain/usage';

/** Rows per statement: 8 parameters each, far below either store's limit on parameters. */
export const ROWS_PER_STATEMENT = 500;

const COUNT_COLUMNS = ['success', 'not_modified', 'client_error', 'rate_limited', 'server_error'] as const;
const COLUMNS = ['key_id', 'day', 'account_id', ...COUNT_COLUMNS];

/** How each store adds a row's counts to the one already there: MariaDB/MySQL and SQLite spell the upsert differently. */
const ADD_ON_CONFLICT = {
  mysql: `ON DUPLICATE KEY UPDATE ${COUNT_COLUMNS.map((column) => `${column} = ${column} + VALUES(${column})`).join(', ')}`,
  sqlite: `ON CONFLICT (key_id, day) DO UPDATE SET ${COUNT_COLUMNS.map((column) => `${column} = ${column} + excluded.${column}`).join(', ')}`,
} as const;

const SELECT = `SELECT key_id AS keyId, account_id AS accountId, day, ${COUNT_COLUMNS.join(', ')} FROM api_key_usage`;

interface UsageRecord {
  keyId: number | string;
  accountId: number | string;
  day: string;
  success: number | string;
  not_modified: number | string;
  client_error: number | string;
  rate_limited: number | string;
  server_error: number | string;
}

/** The usage counts in either store: one multi-row upsert per batch of rows, which adds to what is there. */
export class TypeOrmUsageStore extends UsageStore {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly dialect: keyof typeof ADD_ON_CONFLICT,
  ) {
    super();
  }

  async add(rows: readonly UsageRow[]): Promise<number> {
    let statements = 0;
    for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
      const values = chunk.map(() => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ');
      const parameters = chunk.flatMap(({ keyId, day, accountId, counts }) => [
        keyId,
        day,
        accountId,
        counts.success,
        counts.notModified,
        counts.clientError,
        counts.rateLimited,
        counts.serverError,
      ]);
      await execute(this.txHost.tx, `INSERT INTO api_key_usage (${COLUMNS.join(', ')}) VALUES ${values} ${ADD_ON_CONFLICT[this.dialect]}`, parameters);
      statements += 1;
    }
    return statements;
  }

  async findByKey(keyId: number, { from, to }: DayRange): Promise<UsageRow[]> {
    return (await query<UsageRecord>(this.txHost.tx, `${SELECT} WHERE key_id = ? AND day BETWEEN ? AND ? ORDER BY day, key_id`, [keyId, from, to])).map(toRow);
  }

  async findByAccount(accountId: number, { from, to }: DayRange): Promise<UsageRow[]> {
    return (await query<UsageRecord>(this.txHost.tx, `${SELECT} WHERE account_id = ? AND day BETWEEN ? AND ? ORDER BY day, key_id`, [accountId, from, to])).map(toRow);
  }

  removeBefore(day: UsageDay): Promise<number> {
    return execute(this.txHost.tx, 'DELETE FROM api_key_usage WHERE day < ?', [day]);
  }
}

function toRow(record: UsageRecord): UsageRow {
  return {
    day: record.day,
    keyId: Number(record.keyId),
    accountId: Number(record.accountId),
    counts: {
      success: Number(record.success),
      notModified: Number(record.not_modified),
      clientError: Number(record.client_error),
      rateLimited: Number(record.rate_limited),
      serverError: Number(record.server_error),
    },
  };
}
