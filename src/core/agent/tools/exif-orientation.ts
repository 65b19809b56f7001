/**
 * The EXIF orientation of a JPEG or WebP (the tag a camera or phone writes instead of turning the
 * pixels), and the image turned upright, as Pi does before it measures and scales an image: a
 * picture taken sideways is sent, and its size reported, the way it is meant to be seen.
 * Pure: bytes in, pixels out through the codec's own image type.
 */
import type { PhotonImage } from "@silvia-odwyer/photon-node";

/** What the turning needs of Photon. */
export interface OrientationCodec {
  PhotonImage: new (pixels: Uint8Array, width: number, height: number) => PhotonImage;
  fliph(image: PhotonImage): void;
  flipv(image: PhotonImage): void;
}

const EXIF_HEADER = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]; // "Exif\0\0"
const ORIENTATION_TAG = 0x0112;

function startsWith(bytes: Uint8Array, at: number, prefix: readonly number[]): boolean {
  if (at + prefix.length > bytes.length) return false;
  return prefix.every((b, i) => bytes[at + i] === b);
}

/** The orientation tag of the TIFF block at `tiff` (1, "upright", when there is none or it is odd). */
function tiffOrientation(bytes: Uint8Array, tiff: number): number {
  if (tiff + 8 > bytes.length) return 1;
  const little = bytes[tiff] === 0x49 && bytes[tiff + 1] === 0x49;
  const big = bytes[tiff] === 0x4d && bytes[tiff + 1] === 0x4d;
  if (!little && !big) return 1;
  const u16 = (at: number): number => (little ? bytes[at]! | (bytes[at + 1]! << 8) : (bytes[at]! << 8) | bytes[at + 1]!);
  const u32 = (at: number): number => (little ? (u16(at) | (u16(at + 2) << 16)) >>> 0 : ((u16(at) << 16) | u16(at + 2)) >>> 0);
  const ifd = tiff + u32(tiff + 4);
  if (ifd + 2 > bytes.length) return 1;
  const count = u16(ifd);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > bytes.length) return 1;
    if (u16(entry) !== ORIENTATION_TAG) continue;
    const value = u16(entry + 8);
    return value >= 1 && value <= 8 ? value : 1;
  }
  return 1;
}

/** Where a JPEG's EXIF TIFF block starts (its APP1 segment), or -1. */
function jpegTiff(bytes: Uint8Array): number {
  let at = 2;
  while (at + 1 < bytes.length) {
    if (bytes[at] !== 0xff) return -1;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (at + 4 > bytes.length) return -1;
    if (marker === 0xe1) return startsWith(bytes, at + 4, EXIF_HEADER) ? at + 4 + EXIF_HEADER.length : -1;
    at += 2 + ((bytes[at + 2]! << 8) | bytes[at + 3]!);
  }
  return -1;
}

/** Where a WebP's EXIF chunk's TIFF block starts, or -1. */
function webpTiff(bytes: Uint8Array): number {
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
    const size = (bytes[at + 4]! | (bytes[at + 5]! << 8) | (bytes[at + 6]! << 16) | (bytes[at + 7]! << 24)) >>> 0;
    const data = at + 8;
    if (id === "EXIF") {
      if (data + size > bytes.length) return -1;
      return size >= EXIF_HEADER.length && startsWith(bytes, data, EXIF_HEADER) ? data + EXIF_HEADER.length : data;
    }
    at = data + size + (size & 1);
  }
  return -1;
}

/** The EXIF orientation (1 to 8) of a JPEG or WebP; 1 for any other image or none written. */
export function exifOrientation(bytes: Uint8Array): number {
  let tiff = -1;
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xd8) tiff = jpegTiff(bytes);
  else if (bytes.length >= 12 && startsWith(bytes, 0, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, 8, [0x57, 0x45, 0x42, 0x50])) tiff = webpTiff(bytes);
  return tiff < 0 ? 1 : tiffOrientation(bytes, tiff);
}

/** Where pixel (x, y) of a w-by-h image goes in the turned image, for the orientations that swap width and height. */
const TURNS: Record<5 | 6 | 7 | 8, (x: number, y: number, w: number, h: number) => number> = {
  5: (x, y, _w, h) => x * h + y, // transposed
  6: (x, y, _w, h) => x * h + (h - 1 - y), // a quarter turn clockwise
  7: (x, y, w, h) => (w - 1 - x) * h + (h - 1 - y), // transposed the other way
  8: (x, y, w, h) => (w - 1 - x) * h + y, // a quarter turn anticlockwise
};

/**
 * The image turned upright for `orientation`: flips change it in place and return it; the four
 * orientations that swap width and height return a new image (the caller frees the old one).
 */
export function uprightImage(codec: OrientationCodec, image: PhotonImage, orientation: number): PhotonImage {
  switch (orientation) {
    case 2:
      codec.fliph(image);
      return image;
    case 3:
      codec.fliph(image);
      codec.flipv(image);
      return image;
    case 4:
      codec.flipv(image);
      return image;
    case 5:
    case 6:
    case 7:
    case 8: {
      const place = TURNS[orientation];
      const w = image.get_width();
      const h = image.get_height();
      const src = image.get_raw_pixels();
      const dst = new Uint8Array(src.length);
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const from = (y * w + x) * 4;
          dst.set(src.subarray(from, from + 4), place(x, y, w, h) * 4);
        }
      }
      return new codec.PhotonImage(dst, h, w);
    }
    default:
      return image;
  }
}
