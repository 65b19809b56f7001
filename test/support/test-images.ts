/** Real PNGs for the image tests, made with the codec the extension bundles (Photon). */
import { PhotonImage } from "@silvia-odwyer/photon-node";

/** A PNG of `width` by `height` pixels: noisy (so it compresses badly) when `noisy`, else a gradient. */
export function png(width: number, height: number, noisy: boolean, seed = 1): Buffer {
  const pixels = new Uint8Array(width * height * 4);
  let state = seed;
  for (let i = 0; i < pixels.length; i += 4) {
    state = (state * 1103515245 + 12345) >>> 0;
    pixels[i] = noisy ? state & 0xff : (i / 4) % width;
    pixels[i + 1] = noisy ? (state >>> 8) & 0xff : 80;
    pixels[i + 2] = noisy ? (state >>> 16) & 0xff : 160;
    pixels[i + 3] = 255;
  }
  const image = new PhotonImage(pixels, width, height);
  try {
    return Buffer.from(image.get_bytes());
  } finally {
    image.free();
  }
}
