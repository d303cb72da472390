import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// Loads every module, so every module's error codes are declared.
import '../src/app.module';
import { declaredErrorCodes } from '../src/errors/error-code';
import { OPENAPI_FILE } from './support/openapi-contract';

const README = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

/** The `| 404 | \`not_found\` | … |` rows of the README's "Error codes" section. */
function readmeErrorCodes(): string[] {
  const section = README.split('\n## Error codes\n')[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map(([, status, code]) => `${status} ${code}`);
}

describe('the error codes the code declares', () => {
  const declared = declaredErrorCodes().map(({ status, code }) => `${status} ${code}`);

  it('are the rows of the README table, in the same order', () => {
    expect(readmeErrorCodes()).toEqual(declared);
  });

  it("are the API document's ErrorCode enum", () => {
    const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as { components: { schemas: { ErrorCode: { enum: string[] } } } };
    expect(document.components.schemas.ErrorCode.enum).toEqual(declaredErrorCodes().map(({ code }) => code));
  });
});
