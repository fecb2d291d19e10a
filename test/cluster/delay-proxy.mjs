// A TCP proxy to Redis in a process of its own (a stalled test process must not stall Redis's
// replies): holds every reply chunk for the delay last written to its stdin (ms, one per line),
// in order. Prints its port once listening. Usage: node delay-proxy.mjs <redis port>
import { connect, createServer } from 'node:net';
import { createInterface } from 'node:readline';

let delayMs = 0;
createInterface({ input: process.stdin }).on('line', (line) => {
  delayMs = Number(line);
  process.stdout.write(`delay ${delayMs}\n`);
});
process.stdin.on('end', () => process.exit(0));

const server = createServer((client) => {
  const upstream = connect(Number(process.argv[2]), '127.0.0.1');
  client.on('data', (d) => upstream.write(d));
  const queue = [];
  let timer;
  const pump = () => {
    timer = undefined;
    while (queue.length > 0 && queue[0].due <= Date.now()) client.write(queue.shift().data);
    if (queue.length > 0) timer = setTimeout(pump, queue[0].due - Date.now());
  };
  upstream.on('data', (data) => {
    if (delayMs === 0 && queue.length === 0) return void client.write(data);
    queue.push({ due: Date.now() + delayMs, data });
    timer ??= setTimeout(pump, delayMs);
  });
  const end = () => {
    clearTimeout(timer);
    client.destroy();
    upstream.destroy();
  };
  client.on('close', end).on('error', end);
  upstream.on('close', end).on('error', end);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`port ${server.address().port}\n`));
