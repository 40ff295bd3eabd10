import type { Readable } from 'node:stream';
import sharp, { type Sharp } from 'sharp';

/**
 * Largest image (in pixels) we decode: 40 megapixels, a 7,000 x 5,700 photo. A small file that
 * claims more (a decompression bomb) is refused by sharp before it is decoded.
 */
export const MAX_INPUT_PIXELS = 40_000_000;

export const THUMBNAIL_SIZE = 200;

async function run(input: Readable, pipeline: Sharp): Promise<Buffer> {
  input.pipe(pipeline);
  input.once('error', (error) => pipeline.destroy(error));
  return pipeline.toBuffer();
}

/** A JPEG preview that fits in 200 x 200 (orientation applied); throws when the image cannot be read. */
export function makeThumbnail(input: Readable): Promise<Buffer> {
  const pipeline = sharp({ limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
    .rotate()
    .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 80 });
  return run(input, pipeline);
}

/** OnePageCRM's photos and logos: cropped to a centered square, resized to 200 x 200, as PNG. */
export function makeSquareImage(input: Readable): Promise<Buffer> {
  const pipeline = sharp({ limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
    .rotate()
    .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'cover', position: 'centre' })
    .png();
  return run(input, pipeline);
}
