/**
 * What the chat input carries besides its text. Images pasted or dropped on it (PNG, JPEG, GIF,
 * WebP) show as thumbnails above it, each with a remove button; the host checks and prepares each
 * one (its answer is the image as it will be sent) and the prompt carries them. Files dropped from
 * VS Code (the Explorer, an editor tab) become `@path` references at the caret. A large text paste
 * goes in as a marker and is sent in full (paste-markers.ts).
 */
import { ATTACHMENT_LIMITS, type AttachedImage, type DropResolvedMessage, type ImageAttachedMessage, type PromptImage } from "../../src/protocol/chat-attachments";
import type { ChatToHostMessage } from "../../src/protocol/chat-messages";
import { codicon, el } from "../shared/dom";
import { insertReferences } from "./mention-query";
import { cleanPaste, PasteStore } from "./paste-markers";

/** Bytes of one image the input takes (the host refuses larger ones too). */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
const IMAGE_TYPES = /^image\/(?:png|jpeg|gif|webp)$/;
/** What VS Code puts in a drag from the Explorer or an editor tab. */
const URI_LIST_TYPES = ["application/vnd.code.uri-list", "text/uri-list"];

interface Attachment {
  requestId: number;
  tile: HTMLElement;
  image?: AttachedImage;
}

export interface AttachmentHandlers {
  post(message: ChatToHostMessage): void;
  /** A line above the input (a refused image, a note about the model). */
  notify(text: string, level: "info" | "error"): void;
}

function readAsBase64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(",") + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error("The file could not be read."));
    reader.readAsDataURL(file);
  });
}

export class Attachments {
  /** The thumbnails row, put above the input. */
  readonly element = el("div", "attachments");
  readonly pastes = new PasteStore();
  private readonly items: Attachment[] = [];
  private nextRequest = 1;
  private dropRequest = 0;

  constructor(
    private readonly input: HTMLTextAreaElement,
    dropZone: HTMLElement,
    private readonly handlers: AttachmentHandlers,
  ) {
    this.element.setAttribute("role", "list");
    this.element.setAttribute("aria-label", "Attached images");
    this.element.hidden = true;
    input.addEventListener("paste", (e) => this.onPaste(e));
    dropZone.addEventListener("dragover", (e) => {
      if (!e.dataTransfer || ![...e.dataTransfer.types].some((t) => t === "Files" || URI_LIST_TYPES.includes(t))) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = "copy";
    });
    dropZone.addEventListener("drop", (e) => this.onDrop(e));
  }

  /** The images ready to send (thumbnails still being prepared are left out), emptying the row. */
  take(): PromptImage[] | undefined {
    const ready = this.items.flatMap((a) => (a.image ? [{ data: a.image.data, mimeType: a.image.mimeType }] : []));
    this.items.length = 0;
    this.element.replaceChildren();
    this.element.hidden = true;
    return ready.length > 0 ? ready : undefined;
  }

  get count(): number {
    return this.items.length;
  }

  /** Adds images (pasted, dropped from outside VS Code): each is shown at once and checked by the host. */
  async addFiles(files: readonly File[]): Promise<void> {
    for (const file of files) {
      if (this.items.length >= ATTACHMENT_LIMITS.imagesPerPrompt) {
        this.handlers.notify(`A prompt takes at most ${ATTACHMENT_LIMITS.imagesPerPrompt} images.`, "error");
        return;
      }
      if (file.size > MAX_IMAGE_BYTES) {
        this.handlers.notify(`${file.name || "The image"} is too large to send (at most ${MAX_IMAGE_BYTES / 1024 / 1024} MB).`, "error");
        continue;
      }
      const data = await readAsBase64(file);
      if (data.length === 0 || data.length > ATTACHMENT_LIMITS.imageData) continue;
      const requestId = this.nextRequest++;
      const tile = this.tile(requestId, `data:${file.type || "image/png"};base64,${data}`, file.name);
      this.items.push({ requestId, tile });
      this.element.hidden = false;
      this.handlers.post({ type: "attachImage", requestId, data });
    }
  }

  /** The host's answer about an image, or about dropped files. */
  receive(m: ImageAttachedMessage | DropResolvedMessage): void {
    if (m.type === "dropResolved") {
      if (m.requestId !== this.dropRequest) return;
      const caret = this.input.selectionStart ?? this.input.value.length;
      const next = insertReferences(this.input.value, caret, m.references);
      this.setInput(next.text, next.caret);
      return;
    }
    const item = this.items.find((a) => a.requestId === m.requestId);
    if (!item) return;
    if (!m.image) {
      this.remove(item);
      this.handlers.notify(m.error ?? "The image cannot be sent.", "error");
      return;
    }
    item.image = m.image;
    item.tile.classList.remove("pending");
    const img = item.tile.querySelector("img")!;
    img.src = `data:${m.image.mimeType};base64,${m.image.data}`;
    const size = `${m.image.width}×${m.image.height}`;
    item.tile.title = m.image.original ? `${size} (scaled down from ${m.image.original.width}×${m.image.original.height})` : size;
    if (m.note) this.handlers.notify(m.note, "info");
  }

  private tile(requestId: number, src: string, name: string): HTMLElement {
    const tile = el("div", "attachment pending");
    tile.setAttribute("role", "listitem");
    tile.dataset.request = String(requestId);
    const img = el("img", "attachment-image");
    img.alt = name || "Pasted image";
    img.src = src;
    const remove = el("button", "attachment-remove");
    remove.type = "button";
    remove.title = "Remove image";
    remove.setAttribute("aria-label", "Remove image");
    remove.append(codicon("close"));
    remove.addEventListener("click", () => {
      const item = this.items.find((a) => a.requestId === requestId);
      if (item) this.remove(item);
      this.input.focus();
    });
    tile.append(img, remove);
    this.element.append(tile);
    return tile;
  }

  private remove(item: Attachment): void {
    this.items.splice(this.items.indexOf(item), 1);
    item.tile.remove();
    this.element.hidden = this.items.length === 0;
  }

  private onPaste(e: ClipboardEvent): void {
    const data = e.clipboardData;
    if (!data) return;
    const images = [...data.files].filter((f) => IMAGE_TYPES.test(f.type));
    if (images.length > 0) {
      e.preventDefault();
      void this.addFiles(images);
      return;
    }
    const text = data.getData("text/plain");
    if (!text) return;
    const cleaned = cleanPaste(text);
    const marker = this.pastes.add(cleaned);
    if (marker === undefined) return;
    e.preventDefault();
    const start = this.input.selectionStart ?? this.input.value.length;
    const end = this.input.selectionEnd ?? start;
    this.setInput(this.input.value.slice(0, start) + marker + this.input.value.slice(end), start + marker.length);
  }

  private onDrop(e: DragEvent): void {
    const transfer = e.dataTransfer;
    if (!transfer) return;
    const uriList = URI_LIST_TYPES.map((t) => transfer.getData(t)).find((v) => v.trim() !== "");
    if (uriList) {
      e.preventDefault();
      const uris = uriList.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#")).slice(0, ATTACHMENT_LIMITS.urisPerDrop);
      if (uris.length === 0) return;
      this.dropRequest = this.nextRequest++;
      this.handlers.post({ type: "resolveDrop", requestId: this.dropRequest, uris });
      return;
    }
    const files = [...transfer.files];
    if (files.length === 0) return;
    e.preventDefault();
    const images = files.filter((f) => IMAGE_TYPES.test(f.type));
    if (images.length < files.length) this.handlers.notify("Only PNG, JPEG, GIF and WebP images can be dropped here from outside VS Code; drop other files from the Explorer to reference them.", "error");
    void this.addFiles(images);
  }

  /** Puts text in the input as if typed (the composer saves it and the host mirrors it). */
  private setInput(text: string, caret: number): void {
    this.input.value = text;
    this.input.focus();
    this.input.setSelectionRange(caret, caret);
    this.input.dispatchEvent(new Event("input", { bubbles: true }));
  }
}
