// multipart/form-data framing for the transport's uploads (files, audio). Only the framing lives here:
// the file's bytes are never copied into it, so a caller can send them in the pieces they arrived in
// with an exact Content-Length (vendors refuse chunked uploads).
import { randomBytes } from 'node:crypto';

/** A boundary no file's bytes will contain by chance. */
export function newBoundary(): string {
  return `----switchyard${randomBytes(12).toString('hex')}`;
}

/** What a header parameter may not contain unescaped (the WHATWG FormData encoding, as browsers send it). */
export function quoted(value: string): string {
  return value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}

/** One text field, whole. */
export function formField(boundary: string, name: string, value: string): string {
  return `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`;
}

/** The head of the `file` part; its bytes follow, then `fileTail`. */
export function fileHead(boundary: string, filename: string, contentType: string): string {
  return (
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(filename)}"\r\n` +
    `Content-Type: ${contentType.replace(/[\r\n]/g, '')}\r\n\r\n`
  );
}

/** What closes the file part and the form. */
export function fileTail(boundary: string): string {
  return `\r\n--${boundary}--\r\n`;
}
