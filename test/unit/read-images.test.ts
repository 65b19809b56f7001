/**
 * Images the read tool sends, on real files: the type comes from the bytes; large images are made to
 * fit as Pi's resizeImage makes them (compared with the reference's own function on the same
 * pictures: same pixels size, same format, same bytes); small ones go unchanged; without the codec
 * an image goes as it is when it fits, and is described when it does not.
 */
import * as assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PhotonImage } from "@silvia-odwyer/photon-node";
import { png } from "../support/test-images";
import { DEFAULT_OUTPUT_LIMITS } from "../../src/core/agent/output/output-limits";
import { createReadTool, type ToolContext, type ToolOutcome } from "../../src/core/agent/tools";
import { DEFAULT_IMAGE_LIMITS, fitImage, sniffImageType } from "../../src/core/agent/tools/image-resize";

type RefResize = (img: { type: "image"; data: string; mimeType: string }, options?: Record<string, number>) => Promise<{ data: string; mimeType: string; width: number; height: number; wasResized: boolean } | null>;


const text = (o: ToolOutcome) => o.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
const imageOf = (o: ToolOutcome) => o.content.find((b) => b.type === "image") as { data: string; mimeType: string } | undefined;

function dimensions(base64: string): [number, number] {
  const image = PhotonImage.new_from_byteslice(new Uint8Array(Buffer.from(base64, "base64")));
  try {
    return [image.get_width(), image.get_height()];
  } finally {
    image.free();
  }
}

describe("read tool: images", function () {
  this.timeout(120_000);
  let cwd: string;
  let reference: RefResize;
  const context = (): ToolContext => ({ cwd, toolCallId: "t", signal: new AbortController().signal, limits: DEFAULT_OUTPUT_LIMITS, allowShell: false });
  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), "arbor-images-"));
    const file = join(__dirname, "..", "..", "..", "node_modules", "@mariozechner", "pi-coding-agent", "dist", "utils", "image-resize.js");
    reference = ((await import(pathToFileURL(file).href)) as { resizeImage: RefResize }).resizeImage;
  });
  after(() => rmSync(cwd, { recursive: true, force: true }));

  it("scales an image wider than 2000 pixels down to fit, says so, and records the sizes", async () => {
    writeFileSync(join(cwd, "wide.png"), png(3000, 900, false));
    const outcome = await createReadTool().execute({ path: "wide.png" }, context());
    const image = imageOf(outcome)!;
    assert.equal(image.mimeType, "image/png");
    assert.deepEqual(dimensions(image.data), [2000, 600]);
    assert.equal(text(outcome), "Image wide.png (image/png):\n[The image is 3000x900 pixels and is shown at 2000x600: multiply coordinates by 1.50 to map them to the original.]");
    assert.deepEqual(outcome.details, { image: { originalWidth: 3000, originalHeight: 900, width: 2000, height: 600, mimeType: "image/png" } });
  });

  it("sends a small image unchanged, and takes the type from the bytes, not the name", async () => {
    const small = png(40, 30, true);
    writeFileSync(join(cwd, "small.dat"), small);
    writeFileSync(join(cwd, "fake.png"), "not a picture\n");
    const outcome = await createReadTool().execute({ path: "small.dat" }, context());
    assert.equal(imageOf(outcome)!.data, small.toString("base64"));
    assert.equal(outcome.details, undefined);
    const fake = await createReadTool().execute({ path: "fake.png" }, context());
    assert.equal(imageOf(fake), undefined);
    assert.equal(text(fake), "not a picture\n");
    assert.equal(sniffImageType(Buffer.from("GIF89a......")), "image/gif");
    assert.equal(sniffImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), "image/jpeg");
    assert.equal(sniffImageType(Buffer.from("RIFF\0\0\0\0WEBP")), "image/webp");
  });

  it("makes images fit exactly as the reference's resizeImage does (size, format and bytes)", async () => {
    const cases: [number, number, boolean, Partial<typeof DEFAULT_IMAGE_LIMITS>][] = [
      [2600, 2600, false, {}],
      [900, 2400, true, {}],
      [300, 200, true, { maxBytes: 60_000 }],
      [500, 500, true, { maxBytes: 20_000, maxWidth: 400, maxHeight: 400 }],
      [120, 80, false, {}],
    ];
    for (const [width, height, noisy, limits] of cases) {
      const bytes = png(width, height, noisy, width);
      const expected = await reference({ type: "image", data: bytes.toString("base64"), mimeType: "image/png" }, limits);
      const actual = await fitImage(bytes, "image/png", { ...DEFAULT_IMAGE_LIMITS, ...limits });
      const where = `${width}x${height}${noisy ? " noisy" : ""} ${JSON.stringify(limits)}`;
      assert.ok(expected, where);
      assert.equal(actual?.mimeType, expected.mimeType, where);
      assert.deepEqual([actual.width, actual.height, actual.resized], [expected.width, expected.height, expected.wasResized], where);
      assert.equal(actual.data, expected.data, where);
    }
  });

  it("turns photos upright by their EXIF orientation before measuring and scaling, as the reference does (JPEG, all eight)", async () => {
    /** A JPEG with an APP1 EXIF segment whose IFD0 holds only the orientation tag (big- or little-endian). */
    const withOrientation = (jpeg: Buffer, orientation: number, little: boolean): Buffer => {
      const u16 = (v: number) => (little ? [v & 0xff, v >> 8] : [v >> 8, v & 0xff]);
      const u32 = (v: number) => (little ? [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >>> 24] : [v >>> 24, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff]);
      const tiff = [...(little ? [0x49, 0x49] : [0x4d, 0x4d]), ...u16(42), ...u32(8), ...u16(1), ...u16(0x0112), ...u16(3), ...u32(1), ...u16(orientation), 0, 0, ...u32(0)];
      const payload = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff];
      const segment = Buffer.from([0xff, 0xe1, (payload.length + 2) >> 8, (payload.length + 2) & 0xff, ...payload]);
      return Buffer.concat([jpeg.subarray(0, 2), segment, jpeg.subarray(2)]);
    };
    const jpegOf = (width: number, height: number): Buffer => {
      const image = PhotonImage.new_from_byteslice(new Uint8Array(png(width, height, false, 3)));
      try {
        return Buffer.from(image.get_bytes_jpeg(90));
      } finally {
        image.free();
      }
    };
    for (const [width, height, limits] of [[60, 30, {}], [2100, 300, {}]] as const) {
      const base = jpegOf(width, height);
      for (let orientation = 1; orientation <= 8; orientation++) {
        const bytes = withOrientation(base, orientation, orientation % 2 === 0);
        const expected = await reference({ type: "image", data: bytes.toString("base64"), mimeType: "image/jpeg" }, limits);
        const actual = await fitImage(bytes, "image/jpeg", { ...DEFAULT_IMAGE_LIMITS, ...limits });
        const where = `${width}x${height} orientation ${orientation}`;
        assert.ok(expected && actual, where);
        const swapped = orientation >= 5;
        assert.deepEqual([actual.originalWidth, actual.originalHeight], swapped ? [height, width] : [width, height], where);
        assert.deepEqual([actual.width, actual.height, actual.resized, actual.mimeType], [expected.width, expected.height, expected.wasResized, expected.mimeType], where);
        assert.equal(actual.data, expected.data, `${where}: the same bytes as the reference`);
      }
    }
  });

  it("without the codec, sends an image that fits as it is and describes one that does not", async () => {
    const noCodec = async () => undefined;
    writeFileSync(join(cwd, "ok.png"), png(50, 50, false));
    writeFileSync(join(cwd, "huge.png"), png(1800, 1000, true));
    const ok = await createReadTool({ imageCodec: noCodec }).execute({ path: "ok.png" }, context());
    assert.ok(imageOf(ok));
    const huge = await createReadTool({ imageCodec: noCodec }).execute({ path: "huge.png" }, context());
    assert.equal(imageOf(huge), undefined);
    assert.match(text(huge), /^Image huge\.png \(image\/png\) was not sent: it could not be made small enough/);
  });
});
