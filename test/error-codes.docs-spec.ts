import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES } from '../src/errors/http/error-statuses';
import { OPENAPI_FILE } from './support/openapi-contract';

const README = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

/** The `| 404 | \`not_found\` | … |` rows of the README's "Error codes" section. */
function readmeErrorCodes(): string[] {
  const section = README.split('\n## Error codes\n')[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map(([, status, code]) => `${status} ${code}`);
}

describe('the error codes errors/http gives a status', () => {
  const declared = ERROR_CODES.map(({ status, code }) => `${status} ${code}`);

  it('are the rows of the README table, in the same order', () => {
    expect(readmeErrorCodes()).toEqual(declared);
  });

  it("are the API document's ErrorCode enum", () => {
    const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as { components: { schemas: { ErrorCode: { enum: string[] } } } };
    expect(document.components.schemas.ErrorCode.enum).toEqual(ERROR_CODES.map(({ code }) => code));
  });
});
