/**
 * A collector that takes OTLP over HTTP and keeps nothing: the cost of tracing
 * measured without a collector's own work on the machine.
 *   npx ts-node --transpile-only bench/otlp-sink.ts [port]   (default 4318)
 *   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 npm run bench -- ...
 */
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 4318);
let batches = 0;
let bytes = 0;

const server = createServer((request, response) => {
  request.on('data', (chunk: Buffer) => (bytes += chunk.length));
  request.on('end', () => {
    if (request.method === 'POST' && request.url === '/v1/traces') batches++;
    // An empty protobuf message is a valid ExportTraceServiceResponse: everything accepted.
    response.writeHead(request.method === 'POST' ? 200 : 404, { 'content-type': 'application/x-protobuf' }).end();
  });
});

server.listen(port, '127.0.0.1', () => process.stdout.write(`OTLP sink on http://127.0.0.1:${port}/v1/traces\n`));
const report = () => process.stdout.write(`received ${batches} trace batches, ${(bytes / 1024).toFixed(0)} KiB\n`);
process.on('SIGTERM', () => server.close(() => (report(), process.exit(0))));
process.on('SIGINT', () => server.close(() => (report(), process.exit(0))));
