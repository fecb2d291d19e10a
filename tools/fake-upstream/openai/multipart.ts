// Minimal multipart/form-data reader over an already-buffered body (files, transcriptions).

export interface FormFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface FormData {
  fields: Map<string, string>;
  files: Map<string, FormFile>;
}

function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType?.toLowerCase().startsWith('multipart/form-data')) return undefined;
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

function param(disposition: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|;)\\s*${name}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(disposition);
  if (m) return m[1].replace(/\\(.)/g, '$1');
  const bare = new RegExp(`(?:^|;)\\s*${name}=([^;]+)`, 'i').exec(disposition);
  return bare ? bare[1].trim() : undefined;
}

/** Returns undefined when the body is not well-formed multipart (callers answer 400). */
export function parseMultipart(body: Buffer, contentType: string | undefined): FormData | undefined {
  const boundary = boundaryOf(contentType);
  if (boundary === undefined) return undefined;
  const delim = Buffer.from(`--${boundary}`);
  const form: FormData = { fields: new Map(), files: new Map() };
  let at = body.indexOf(delim);
  if (at === -1) return undefined;
  for (;;) {
    at += delim.length;
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return form; // closing `--boundary--`
    if (body[at] === 0x0d && body[at + 1] === 0x0a) at += 2;
    const headEnd = body.indexOf('\r\n\r\n', at);
    if (headEnd === -1) return undefined;
    const next = body.indexOf(delim, headEnd + 4);
    if (next === -1) return undefined;
    const head = body.subarray(at, headEnd).toString('utf8');
    // the part's data ends before the CRLF that precedes the next delimiter
    const data = body.subarray(headEnd + 4, next - 2);
    let disposition = '';
    let partType = 'application/octet-stream';
    for (const line of head.split('\r\n')) {
      const colon = line.indexOf(':');
      const key = line.slice(0, colon).trim().toLowerCase();
      if (key === 'content-disposition') disposition = line.slice(colon + 1);
      else if (key === 'content-type') partType = line.slice(colon + 1).trim();
    }
    const name = param(disposition, 'name');
    const filename = param(disposition, 'filename');
    if (name !== undefined) {
      if (filename !== undefined) form.files.set(name, { filename, contentType: partType, data: Buffer.from(data) });
      else form.fields.set(name, data.toString('utf8'));
    }
    at = next;
  }
}
