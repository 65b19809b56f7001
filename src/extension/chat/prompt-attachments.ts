import * as vscode from "vscode";
import type { AgentSession } from "../../core/agent/agent-session";
import { DEFAULT_PROMPT_IMAGE_SETTINGS, preparePromptImage, promptImageSettings, type PromptImageSettings } from "../../core/agent/prompt-images";
import type { ImageContent } from "../../core/session/types";
import { fileReference, type AttachmentToHostMessage, type PromptImage } from "../../protocol/chat-attachments";
import type { HostToChatMessage } from "../../protocol/chat-messages";
import { referencePath, WorkspaceFiles } from "./workspace-files";

/** Where answers go: the chat that asked. */
export interface AttachmentSurface {
  post(message: HostToChatMessage): void;
}


/**
 * The host side of what a prompt carries besides its text: images the chat hands over are checked
 * (type by their first bytes, size) and made to fit as Pi makes them fit, once when pasted (for the
 * thumbnail and a refusal the user sees at once) and again when sent (nothing from the webview is
 * trusted); the `@` search runs VS Code's file search; files dropped from VS Code become references.
 */
export class PromptAttachments implements vscode.Disposable {
  private readonly files = new WorkspaceFiles();
  /** The `@` search running, cancelled by the next one. */
  private search: vscode.CancellationTokenSource | undefined;

  constructor(private readonly session: () => AgentSession | undefined) {}

  /** Pi's `images.*` for the session's folder (the defaults before a session is open). */
  private settings(): PromptImageSettings {
    const session = this.session();
    return session ? promptImageSettings(session.getResources().settings.merged.images) : { ...DEFAULT_PROMPT_IMAGE_SETTINGS };
  }

  /** The session's folder, else the first workspace folder's. */
  private cwd(): string | undefined {
    return this.session()?.sessionManager.getCwd() ?? vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === "file")?.uri.fsPath;
  }

  /** What the user should know about an image they add: the model will not see it. */
  private imageNote(settings: PromptImageSettings): string | null {
    if (settings.blockImages) return vscode.l10n.t("Images are turned off (images.blockImages in Pi's settings): the model gets a line saying an image was left out.");
    const model = this.session()?.getModel();
    if (model && model.supportsImages === false) return vscode.l10n.t("{0} does not take images: it gets a note in place of the image.", model.name || model.id);
    return null;
  }

  async handle(surface: AttachmentSurface, m: AttachmentToHostMessage): Promise<void> {
    switch (m.type) {
      case "attachImage": {
        const settings = this.settings();
        const prepared = await preparePromptImage(m.data, settings);
        if (!prepared.ok) return surface.post({ type: "imageAttached", requestId: m.requestId, image: null, error: prepared.error, note: null });
        const { data, mimeType } = prepared.image;
        return surface.post({
          type: "imageAttached",
          requestId: m.requestId,
          image: { data, mimeType, width: prepared.width, height: prepared.height, ...(prepared.original ? { original: prepared.original } : {}) },
          error: null,
          note: this.imageNote(settings),
        });
      }
      case "searchFiles": {
        this.search?.cancel();
        const source = (this.search = new vscode.CancellationTokenSource());
        try {
          const files = await this.files.search(m.query, this.cwd(), source.token);
          if (!source.token.isCancellationRequested) surface.post({ type: "fileResults", requestId: m.requestId, files, unavailable: (vscode.workspace.workspaceFolders?.length ?? 0) === 0 });
        } finally {
          source.dispose();
          if (this.search === source) this.search = undefined;
        }
        return;
      }
      case "resolveDrop": {
        const cwd = this.cwd();
        const references = m.uris.flatMap((raw) => {
          try {
            const uri = vscode.Uri.parse(raw, true);
            return uri.scheme === "file" || vscode.workspace.getWorkspaceFolder(uri) ? [fileReference(referencePath(uri, cwd))] : [];
          } catch {
            return [];
          }
        });
        return surface.post({ type: "dropResolved", requestId: m.requestId, references });
      }
    }
  }

  /** The images of a prompt as they will be sent: each checked and fitted again; throws with what is wrong. */
  async forPrompt(images: readonly PromptImage[] | undefined): Promise<ImageContent[] | undefined> {
    if (!images || images.length === 0) return undefined;
    const settings = this.settings();
    const prepared: ImageContent[] = [];
    for (const [index, image] of images.entries()) {
      const result = await preparePromptImage(image.data, settings);
      if (!result.ok) throw new Error(images.length === 1 ? result.error : vscode.l10n.t("Image {0}: {1}", index + 1, result.error));
      prepared.push(result.image);
    }
    return prepared;
  }

  dispose(): void {
    this.search?.cancel();
    this.files.dispose();
  }
}
