/**
 * Images the read tool sends are made to fit as Pi makes them fit: at most 2000 by 2000 pixels and
 * under 4.5 MB of base64 (headroom below the providers' 5 MB limit). A larger one is scaled down
 * (Lanczos3) and sent as whichever of PNG or JPEG (quality 80, 85, 70, 55, 40, in that order) first
 * fits; when none does, the size steps down by a quarter until one does. The codec is Photon
 * (Rust compiled to WebAssembly, the library Pi uses), loaded on the first image.
 */
import type { PhotonImage } from "@silvia-odwyer/photon-node";
import { exifOrientation, uprightImage } from "./exif-orientation";

/** The part of Photon the resizing uses (a seam: tests may pass their own loader). */
export interface ImageCodec {
  PhotonImage: { new_from_byteslice(bytes: Uint8Array): PhotonImage; new (pixels: Uint8Array, width: number, height: number): PhotonImage };
  fliph(image: PhotonImage): void;
  flipv(image: PhotonImage): void;
  resize(image: PhotonImage, width: number, height: number, filter: number): PhotonImage;
  SamplingFilter: { Lanczos3: number };
}

export interface ImageLimits {
  maxWidth: number;
  maxHeight: number;
  /** Of the base64 text. */
  maxBytes: number;
  jpegQuality: number;
}

/** Pi's limits. */
export const DEFAULT_IMAGE_LIMITS: Readonly<ImageLimits> = Object.freeze({ maxWidth: 2000, maxHeight: 2000, maxBytes: 4.5 * 1024 * 1024, jpegQuality: 80 });

/** An image as it will be sent, with the size it had. */
export interface FittedImage {
  /** Base64. */
  data: string;
  mimeType: string;
  width: number;
  height: number;
  originalWidth: number;
  originalHeight: number;
  resized: boolean;
}

let codec: Promise<ImageCodec | undefined> | undefined;

/** Photon, loaded once; undefined when it cannot load (then images are sent only when they already fit). */
export function loadPhoton(): Promise<ImageCodec | undefined> {
  // Bundled, Photon reads its .wasm from the bundle's folder (the build copies it there).
  codec ??= import("@silvia-odwyer/photon-node")
    .then((module) => ((module as { default?: ImageCodec }).default ?? module) as ImageCodec)
    .catch(() => undefined);
  return codec;
}

const base64Length = (bytes: number): number => Math.ceil(bytes / 3) * 4;

/**
 * The image made to fit `limits`, or undefined when it cannot be (not decodable, or too large even
 * at one pixel, or no codec and too large as it is).
 */
export async function fitImage(bytes: Buffer, mimeType: string, limits: ImageLimits = DEFAULT_IMAGE_LIMITS, load: () => Promise<ImageCodec | undefined> = loadPhoton): Promise<FittedImage | undefined> {
  const photon = await load();
  if (!photon) return undefined;
  let image: PhotonImage;
  try {
    const raw = photon.PhotonImage.new_from_byteslice(new Uint8Array(bytes));
    // Upright first, as Pi: a photo taken sideways is measured and scaled as it is meant to be seen.
    try {
      image = uprightImage(photon, raw, exifOrientation(bytes));
    } catch {
      raw.free();
      return undefined;
    }
    if (image !== raw) raw.free();
  } catch {
    return undefined;
  }
  try {
    const originalWidth = image.get_width();
    const originalHeight = image.get_height();
    if (originalWidth <= limits.maxWidth && originalHeight <= limits.maxHeight && base64Length(bytes.length) < limits.maxBytes) {
      return { data: bytes.toString("base64"), mimeType, width: originalWidth, height: originalHeight, originalWidth, originalHeight, resized: false };
    }
    let width = originalWidth;
    let height = originalHeight;
    if (width > limits.maxWidth) {
      height = Math.round((height * limits.maxWidth) / width);
      width = limits.maxWidth;
    }
    if (height > limits.maxHeight) {
      width = Math.round((width * limits.maxHeight) / height);
      height = limits.maxHeight;
    }
    const qualities = [...new Set([limits.jpegQuality, 85, 70, 55, 40])];
    for (;;) {
      const scaled = photon.resize(image, width, height, photon.SamplingFilter.Lanczos3);
      try {
        const candidates: [() => Uint8Array, string][] = [[() => scaled.get_bytes(), "image/png"], ...qualities.map((q): [() => Uint8Array, string] => [() => scaled.get_bytes_jpeg(q), "image/jpeg"])];
        for (const [encode, type] of candidates) {
          const data = Buffer.from(encode()).toString("base64");
          if (data.length < limits.maxBytes) return { data, mimeType: type, width, height, originalWidth, originalHeight, resized: true };
        }
      } finally {
        scaled.free();
      }
      if (width === 1 && height === 1) return undefined;
      const nextWidth = width === 1 ? 1 : Math.max(1, Math.floor(width * 0.75));
      const nextHeight = height === 1 ? 1 : Math.max(1, Math.floor(height * 0.75));
      if (nextWidth === width && nextHeight === height) return undefined;
      width = nextWidth;
      height = nextHeight;
    }
  } catch {
    return undefined;
  } finally {
    image.free();
  }
}

/** The line that tells the model a picture was scaled, and how to map its coordinates back. */
export function scaleNote(image: FittedImage): string | undefined {
  if (!image.resized) return undefined;
  const factor = image.originalWidth / image.width;
  return `[The image is ${image.originalWidth}x${image.originalHeight} pixels and is shown at ${image.width}x${image.height}: multiply coordinates by ${factor.toFixed(2)} to map them to the original.]`;
}

/** The image type named by a file's first bytes (PNG, JPEG, GIF, WebP), whatever its name says. */
export function sniffImageType(head: Buffer): string | undefined {
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (head.length >= 6 && (head.subarray(0, 6).toString("latin1") === "GIF87a" || head.subarray(0, 6).toString("latin1") === "GIF89a")) return "image/gif";
  if (head.length >= 12 && head.subarray(0, 4).toString("latin1") === "RIFF" && head.subarray(8, 12).toString("latin1") === "WEBP") return "image/webp";
  return undefined;
}
