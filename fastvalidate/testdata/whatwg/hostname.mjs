// Reads a JSON array of URLs on stdin and writes a JSON array of what
// Node's WHATWG URL parser makes of each one's host: url.hostname, or null
// where the parser refuses the URL.
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const out = JSON.parse(input).map((u) => {
    try {
      return new URL(u).hostname;
    } catch {
      return null;
    }
  });
  process.stdout.write(JSON.stringify(out));
});
