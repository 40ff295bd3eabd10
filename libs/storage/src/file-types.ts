/**
 * What may be stored (decisions.md "Attachments"): the file's extension names its type, and the
 * first bytes must agree with it. Images must carry their own magic number (a `.png` that is HTML
 * is refused); text must not be markup a browser would render. SVG and HTML are never accepted.
 */
export type FileFamily = 'png' | 'jpeg' | 'gif' | 'webp' | 'pdf' | 'zip' | 'ole' | 'rtf' | 'text';

interface FileType {
  readonly contentType: string;
  readonly family: FileFamily;
}

const TYPES: Readonly<Record<string, FileType>> = {
  png: { contentType: 'image/png', family: 'png' },
  jpg: { contentType: 'image/jpeg', family: 'jpeg' },
  jpeg: { contentType: 'image/jpeg', family: 'jpeg' },
  gif: { contentType: 'image/gif', family: 'gif' },
  webp: { contentType: 'image/webp', family: 'webp' },
  pdf: { contentType: 'application/pdf', family: 'pdf' },
  zip: { contentType: 'application/zip', family: 'zip' },
  docx: { contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', family: 'zip' },
  xlsx: { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', family: 'zip' },
  pptx: { contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation', family: 'zip' },
  odt: { contentType: 'application/vnd.oasis.opendocument.text', family: 'zip' },
  ods: { contentType: 'application/vnd.oasis.opendocument.spreadsheet', family: 'zip' },
  odp: { contentType: 'application/vnd.oasis.opendocument.presentation', family: 'zip' },
  doc: { contentType: 'application/msword', family: 'ole' },
  xls: { contentType: 'application/vnd.ms-excel', family: 'ole' },
  ppt: { contentType: 'application/vnd.ms-powerpoint', family: 'ole' },
  msg: { contentType: 'application/vnd.ms-outlook', family: 'ole' },
  rtf: { contentType: 'application/rtf', family: 'rtf' },
  txt: { contentType: 'text/plain', family: 'text' },
  csv: { contentType: 'text/csv', family: 'text' },
  md: { contentType: 'text/markdown', family: 'text' },
  vcf: { contentType: 'text/vcard', family: 'text' },
  ics: { contentType: 'text/calendar', family: 'text' },
  eml: { contentType: 'message/rfc822', family: 'text' },
};

export const IMAGE_FAMILIES: ReadonlySet<FileFamily> = new Set(['png', 'jpeg', 'gif', 'webp']);

/** Bytes of a file's start that {@link checkFileContent} looks at. */
export const SNIFF_BYTES = 4096;

export const ALLOWED_EXTENSIONS: readonly string[] = Object.keys(TYPES);

export function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return dot < 0 ? '' : filename.slice(dot + 1).toLowerCase();
}

/** The content type served for a stored file, from its (sanitized) name. */
export function contentTypeOf(filename: string): string {
  return TYPES[extensionOf(filename)]?.contentType ?? 'application/octet-stream';
}

const startsWith = (head: Buffer, bytes: readonly number[], at = 0) =>
  head.length >= at + bytes.length && bytes.every((b, i) => head[at + i] === b);

/** The family the first bytes show, or null when none of ours. */
export function sniffFamily(head: Buffer): FileFamily | null {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(head, [0x47, 0x49, 0x46, 0x38])) return 'gif';
  if (startsWith(head, [0x52, 0x49, 0x46, 0x46]) && startsWith(head, [0x57, 0x45, 0x42, 0x50], 8)) return 'webp';
  if (startsWith(head, [0x25, 0x50, 0x44, 0x46, 0x2d])) return 'pdf';
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) return 'zip';
  if (startsWith(head, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return 'ole';
  if (startsWith(head, [0x7b, 0x5c, 0x72, 0x74, 0x66])) return 'rtf';
  return looksLikePlainText(head) ? 'text' : null;
}

/** No NUL byte, and no markup a browser would render as a page or run as script. */
function looksLikePlainText(head: Buffer): boolean {
  if (head.includes(0)) return false;
  const start = head.toString('latin1', 0, Math.min(head.length, 1024)).trimStart().toLowerCase();
  return !['<!doctype', '<html', '<script', '<svg', '<?xml', '<body', '<head', '<iframe'].some((tag) => start.startsWith(tag));
}

export type FileCheck = { ok: true; contentType: string; family: FileFamily; image: boolean } | { ok: false; reason: string };

/** Whether a file of this name may be stored with these first bytes. */
export function checkFileContent(filename: string, head: Buffer): FileCheck {
  const extension = extensionOf(filename);
  const type = TYPES[extension];
  if (!type)
    return { ok: false, reason: `files of type .${extension || '(none)'} are not accepted; accepted: ${ALLOWED_EXTENSIONS.join(', ')}` };
  if (head.length === 0) return { ok: false, reason: 'the file is empty' };
  const sniffed = sniffFamily(head);
  if (sniffed !== type.family) return { ok: false, reason: `the content of the file is not ${type.contentType}` };
  return { ok: true, contentType: type.contentType, family: type.family, image: IMAGE_FAMILIES.has(type.family) };
}

/** Whether these bytes start an image we can read (photos and logos), whatever the name says. */
export function sniffImage(head: Buffer): FileFamily | null {
  const family = sniffFamily(head);
  return family && IMAGE_FAMILIES.has(family) ? family : null;
}

/** C0 and C1 controls, DEL, and the bidirectional overrides and isolates (which can disguise an extension). */
function isControl(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

/**
 * A name safe as the last segment of a storage key and in Content-Disposition: the base name only
 * (no directory), control characters (C0, C1, bidirectional overrides) removed, reserved ones
 * replaced by `_`, no leading dots, at most 120 characters with the extension kept; `file` when
 * nothing is left.
 */
export function sanitizeFilename(name: string): string {
  const base = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  let clean = '';
  for (const ch of base.normalize('NFC')) {
    const code = ch.codePointAt(0)!;
    if (isControl(code)) continue;
    clean += '<>:"|?*%#&;=+`\'$'.includes(ch) ? '_' : ch;
  }
  clean = clean.replace(/\s+/g, ' ').trim();
  while (clean.startsWith('.')) clean = clean.slice(1);
  if (clean.length > 120) {
    const extension = extensionOf(clean);
    const keep = extension && extension.length < 12 ? `.${extension}` : '';
    clean = clean.slice(0, 120 - keep.length) + keep;
  }
  return clean || 'file';
}
