/**
 * Images a user puts in a prompt (pasted or dropped into the chat's input), checked and made to fit
 * before they are sent: the type comes from the first bytes (PNG, JPEG, GIF, WebP), never from a
 * name, and with Pi's `images.autoResize` (default on) an image is scaled as Pi scales it (see
 * image-resize); off, it goes as it is. Pure core: no vscode.
 */
import type { ImageContent } from "../session/types";
import { DEFAULT_IMAGE_LIMITS, fitImage, sniffImageType, type ImageCodec, type ImageLimits } from "./tools/image-resize";

/** Bytes of one pasted image that are decoded at most (larger ones are refused before decoding). */
export const MAX_PROMPT_IMAGE_BYTES = 20 * 1024 * 1024;

/** Pi's `images.*` settings, as the prompt uses them. */
export interface PromptImageSettings {
  /** `images.autoResize`: scale to 2000x2000 and under 4.5 MB (default true). */
  autoResize: boolean;
  /** `images.blockImages`: record images, but send the model a line in their place (default false). */
  blockImages: boolean;
}

export const DEFAULT_PROMPT_IMAGE_SETTINGS: Readonly<PromptImageSettings> = Object.freeze({ autoResize: true, blockImages: false });

/** Pi's `images` object of a merged settings.json, with its defaults. */
export function promptImageSettings(images: unknown): PromptImageSettings {
  const record = typeof images === "object" && images !== null && !Array.isArray(images) ? (images as Record<string, unknown>) : {};
  return {
    autoResize: typeof record.autoResize === "boolean" ? record.autoResize : DEFAULT_PROMPT_IMAGE_SETTINGS.autoResize,
    blockImages: typeof record.blockImages === "boolean" ? record.blockImages : DEFAULT_PROMPT_IMAGE_SETTINGS.blockImages,
  };
}

export type PreparedImage =
  | { ok: true; image: ImageContent; width: number; height: number; original?: { width: number; height: number } }
  | { ok: false; error: string };

/** No limit: the image is only decoded (to know it is one, and its size). */
const AS_IT_IS: ImageLimits = { maxWidth: Number.POSITIVE_INFINITY, maxHeight: Number.POSITIVE_INFINITY, maxBytes: Number.POSITIVE_INFINITY, jpegQuality: DEFAULT_IMAGE_LIMITS.jpegQuality };

/**
 * The image as the prompt will carry it, or why it cannot go. `base64` must be valid base64 (the
 * protocol's guard checks it). `load` replaces Photon (a test seam).
 */
export async function preparePromptImage(base64: string, settings: PromptImageSettings, load?: () => Promise<ImageCodec | undefined>): Promise<PreparedImage> {
  const bytes = Buffer.from(base64, "base64");
  if (bytes.length === 0) return { ok: false, error: "The image is empty." };
  if (bytes.length > MAX_PROMPT_IMAGE_BYTES) return { ok: false, error: `The image is too large to send (${(bytes.length / 1024 / 1024).toFixed(1)} MB; at most ${MAX_PROMPT_IMAGE_BYTES / 1024 / 1024} MB).` };
  const mimeType = sniffImageType(bytes.subarray(0, 12));
  if (!mimeType) return { ok: false, error: "Only PNG, JPEG, GIF and WebP images can be sent: this file is none of them." };
  const fitted = await fitImage(bytes, mimeType, settings.autoResize ? DEFAULT_IMAGE_LIMITS : AS_IT_IS, load);
  if (!fitted) {
    return {
      ok: false,
      error: settings.autoResize
        ? `The image could not be read, or made small enough to send (${DEFAULT_IMAGE_LIMITS.maxWidth}x${DEFAULT_IMAGE_LIMITS.maxHeight} pixels, ${DEFAULT_IMAGE_LIMITS.maxBytes / 1024 / 1024} MB).`
        : "The image could not be read.",
    };
  }
  return {
    ok: true,
    image: { type: "image", data: fitted.data, mimeType: fitted.mimeType },
    width: fitted.width,
    height: fitted.height,
    ...(fitted.resized ? { original: { width: fitted.originalWidth, height: fitted.originalHeight } } : {}),
  };
}
