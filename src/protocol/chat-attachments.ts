/**
 * The chat protocol's messages for what a prompt carries besides its text: pasted or dropped images,
 * the `@` file search, and references to files dropped from the Explorer. Shared by the host and
 * the webview; imports neither vscode, nor the DOM, nor Node. The guards validate every field: an
 * image's bytes are checked again by the host (type by its first bytes, size) before any use.
 */
import { isArrayOf, isBool, isIndex, isNonEmpty, isRecord, isText } from "./validate";

export const ATTACHMENT_LIMITS = {
  /** Base64 characters of one image the webview hands over (about 20 MB of bytes). */
  imageData: 28_000_000,
  /** Images in one prompt. */
  imagesPerPrompt: 20,
  /** An `@` query. */
  queryLength: 1_000,
  /** Files one answer lists. */
  fileResults: 100,
  /** A path or a URI. */
  pathLength: 10_000,
  /** URIs in one drop. */
  urisPerDrop: 100,
} as const;

/** The image types a prompt may carry (checked by their first bytes, never by a name). */
export const PROMPT_IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

/** An image as the prompt sends it: base64 bytes and their type. */
export interface PromptImage {
  data: string;
  mimeType: string;
}

/** An image the host accepted, as it will be sent (resized when Pi would resize it). */
export interface AttachedImage extends PromptImage {
  width: number;
  height: number;
  /** Set when it was scaled down: the size it had. */
  original?: { width: number; height: number };
}

/** How a prompt names a file, as Pi's `@` writes it: quoted when it has a space (or `quoted` asks). */
export function fileReference(path: string, quoted = false): string {
  return quoted || /\s/.test(path) ? `@"${path}"` : `@${path}`;
}

/** A workspace file the `@` search found. */
export interface FileMatch {
  /** As the prompt names it: relative to the session's folder (posix), or absolute outside it. */
  path: string;
  /** The file's name, for the first column. */
  name: string;
}

// ---------------------------------------------------------------------------
// Webview → host
// ---------------------------------------------------------------------------

/** An image was pasted or dropped into the input: the host checks and prepares it. */
export interface AttachImageMessage {
  type: "attachImage";
  requestId: number;
  /** Base64 of the bytes as pasted. */
  data: string;
}

/** The text after an `@` changed: the host searches the workspace's files. */
export interface SearchFilesMessage {
  type: "searchFiles";
  requestId: number;
  query: string;
}

/** Files were dropped on the input from VS Code (the Explorer, an editor tab): the host names them. */
export interface ResolveDropMessage {
  type: "resolveDrop";
  requestId: number;
  uris: string[];
}

export type AttachmentToHostMessage = AttachImageMessage | SearchFilesMessage | ResolveDropMessage;

// ---------------------------------------------------------------------------
// Host → webview
// ---------------------------------------------------------------------------

/** The answer to `attachImage`: the image as it will be sent, or why it cannot be. */
export interface ImageAttachedMessage {
  type: "imageAttached";
  requestId: number;
  image: AttachedImage | null;
  /** Why it was refused (when `image` is null). */
  error: string | null;
  /** What the user should know about it (the model does not take images, images are blocked). */
  note: string | null;
}

/** The answer to `searchFiles` (the webview drops answers to older queries). */
export interface FileResultsMessage {
  type: "fileResults";
  requestId: number;
  files: FileMatch[];
  /** The search could not run (no folder open, cancelled): the popup closes. */
  unavailable: boolean;
}

/** The answer to `resolveDrop`: the references to insert, in `@path` form. */
export interface DropResolvedMessage {
  type: "dropResolved";
  requestId: number;
  references: string[];
}

export type AttachmentToChatMessage = ImageAttachedMessage | FileResultsMessage | DropResolvedMessage;

// ---------------------------------------------------------------------------
// Guards
// ---------------------------------------------------------------------------

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Base64 text of at most `max` characters (the host decodes only what passes). */
export function isBase64(x: unknown, max: number): x is string {
  return typeof x === "string" && x.length > 0 && x.length <= max && x.length % 4 === 0 && BASE64.test(x);
}

const isType = (x: unknown): x is string => (PROMPT_IMAGE_TYPES as readonly unknown[]).includes(x);
const isPath = (x: unknown): x is string => isNonEmpty(x, ATTACHMENT_LIMITS.pathLength);
const isSize = (x: unknown): x is number => isIndex(x) && x > 0 && x <= 100_000;

/** One image of a `send`. */
export function isPromptImage(x: unknown): x is PromptImage {
  return isRecord(x) && isType(x.mimeType) && isBase64(x.data, ATTACHMENT_LIMITS.imageData);
}

/** The images of a `send`: absent, or a bounded list of valid ones. */
export function isPromptImages(x: unknown): x is PromptImage[] | undefined {
  return x === undefined || isArrayOf(x, ATTACHMENT_LIMITS.imagesPerPrompt, isPromptImage);
}

/** Validates an attachment message from the webview (false for any other type). */
export function isAttachmentToHostMessage(x: unknown): x is AttachmentToHostMessage {
  if (!isRecord(x) || !isIndex(x.requestId)) return false;
  switch (x.type) {
    case "attachImage":
      return isBase64(x.data, ATTACHMENT_LIMITS.imageData);
    case "searchFiles":
      return isText(x.query, ATTACHMENT_LIMITS.queryLength);
    case "resolveDrop":
      return isArrayOf(x.uris, ATTACHMENT_LIMITS.urisPerDrop, isPath) && x.uris.length > 0;
    default:
      return false;
  }
}

function isAttachedImage(x: unknown): x is AttachedImage {
  if (!isRecord(x) || !isPromptImage(x) || !isSize(x.width) || !isSize(x.height)) return false;
  const original = x.original;
  return original === undefined || (isRecord(original) && isSize(original.width) && isSize(original.height));
}

const isMessageText = (x: unknown): x is string | null => x === null || isText(x, 10_000);

function isFileMatch(x: unknown): x is FileMatch {
  return isRecord(x) && isPath(x.path) && isPath(x.name);
}

/** Validates an attachment message from the host (false for any other type). */
export function isAttachmentToChatMessage(x: unknown): x is AttachmentToChatMessage {
  if (!isRecord(x) || !isIndex(x.requestId)) return false;
  switch (x.type) {
    case "imageAttached":
      return (x.image === null || isAttachedImage(x.image)) && isMessageText(x.error) && isMessageText(x.note) && (x.image !== null || x.error !== null);
    case "fileResults":
      return isArrayOf(x.files, ATTACHMENT_LIMITS.fileResults, isFileMatch) && isBool(x.unavailable);
    case "dropResolved":
      return isArrayOf(x.references, ATTACHMENT_LIMITS.urisPerDrop, isPath);
    default:
      return false;
  }
}
