import { checkFileContent, sanitizeFilename, sniffFamily, sniffImage } from './file-types';
import { isValidStorageKey } from './storage-driver';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const JPEG = Buffer.from('ffd8ffe000104a464946', 'hex');
const PDF = Buffer.from('%PDF-1.7\n');
const ZIP = Buffer.from('504b0304140000000800', 'hex');
const HTML = Buffer.from('<!DOCTYPE html><html><script>alert(1)</script></html>');

describe('file types', () => {
  it('sniffs the families by their magic bytes', () => {
    expect(sniffFamily(PNG)).toBe('png');
    expect(sniffFamily(JPEG)).toBe('jpeg');
    expect(sniffFamily(Buffer.from('GIF89a'))).toBe('gif');
    expect(sniffFamily(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('webp');
    expect(sniffFamily(PDF)).toBe('pdf');
    expect(sniffFamily(ZIP)).toBe('zip');
    expect(sniffFamily(Buffer.from('d0cf11e0a1b11ae1', 'hex'))).toBe('ole');
    expect(sniffFamily(Buffer.from('name,email\nAda,ada@example.com\n'))).toBe('text');
    expect(sniffFamily(HTML)).toBeNull();
    expect(sniffFamily(Buffer.from('  <svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(sniffFamily(Buffer.from([1, 2, 0, 4]))).toBeNull();
  });

  it('accepts a file whose bytes match its extension', () => {
    expect(checkFileContent('mario.PNG', PNG)).toEqual({ ok: true, contentType: 'image/png', family: 'png', image: true });
    expect(checkFileContent('a.jpeg', JPEG)).toMatchObject({ ok: true, contentType: 'image/jpeg', image: true });
    expect(checkFileContent('offer.pdf', PDF)).toMatchObject({ ok: true, contentType: 'application/pdf', image: false });
    expect(checkFileContent('sheet.xlsx', ZIP)).toMatchObject({ ok: true, image: false });
    expect(checkFileContent('list.csv', Buffer.from('a,b\n'))).toMatchObject({ ok: true, contentType: 'text/csv' });
  });

  it('refuses a .png that is HTML, a .pdf that is a PNG, unknown and dangerous types, and empty files', () => {
    expect(checkFileContent('cat.png', HTML)).toMatchObject({ ok: false, reason: 'the content of the file is not image/png' });
    expect(checkFileContent('notes.txt', HTML)).toMatchObject({ ok: false });
    expect(checkFileContent('offer.pdf', PNG)).toMatchObject({ ok: false });
    expect(checkFileContent('page.html', HTML)).toMatchObject({ ok: false, reason: expect.stringContaining('.html are not accepted') });
    expect(checkFileContent('logo.svg', Buffer.from('<svg/>'))).toMatchObject({ ok: false });
    expect(checkFileContent('run.exe', Buffer.from('MZ'))).toMatchObject({ ok: false });
    expect(checkFileContent('noextension', PNG)).toMatchObject({ ok: false });
    expect(checkFileContent('empty.txt', Buffer.alloc(0))).toMatchObject({ ok: false, reason: 'the file is empty' });
  });

  it('tells images apart whatever the name', () => {
    expect(sniffImage(PNG)).toBe('png');
    expect(sniffImage(PDF)).toBeNull();
    expect(sniffImage(HTML)).toBeNull();
  });

  it('sanitizes file names', () => {
    expect(sanitizeFilename('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFilename('C:\\Users\\ada\\report.pdf')).toBe('report.pdf');
    expect(sanitizeFilename('..hidden.txt')).toBe('hidden.txt');
    expect(sanitizeFilename('a\u0000b\r\n"quoted";.txt')).toBe('ab_quoted__.txt');
    expect(sanitizeFilename('Überblick\u0085 für\u009b.txt')).toBe('Überblick für.txt');
    expect(sanitizeFilename('invoice\u202egnp.exe')).toBe('invoicegnp.exe');
    expect(sanitizeFilename('   ')).toBe('file');
    expect(sanitizeFilename('')).toBe('file');
    const long = sanitizeFilename(`${'x'.repeat(300)}.pdf`);
    expect(long).toHaveLength(120);
    expect(long.endsWith('.pdf')).toBe(true);
    expect(sanitizeFilename('Überblick 2024.pdf')).toBe('Überblick 2024.pdf');
  });

  it('validates storage keys', () => {
    expect(isValidStorageKey('5ae06ef9d55673108fe8877f/1530520812224/mario.jpg')).toBe(true);
    for (const bad of ['', 'a//b', '../x', 'a/../b', 'a/./b', '/abs', 'a/b/', 'a\\b', 'a\nb', 'x'.repeat(1025)])
      expect(isValidStorageKey(bad)).toBe(false);
  });
});
