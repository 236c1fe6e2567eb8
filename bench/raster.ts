import { GLYPH_H, GLYPH_W, glyphPixel } from './font';
import { encodePng } from './png';

export type Rgb = readonly [number, number, number];

/** An RGB canvas with just what charts need: pixels, filled rectangles, lines, bitmap text. */
export class Raster {
  readonly px: Uint8Array;

  constructor(readonly width: number, readonly height: number, background: Rgb = [255, 255, 255]) {
    this.px = new Uint8Array(width * height * 3);
    for (let i = 0; i < width * height; i++) this.px.set(background, i * 3);
  }

  set(x: number, y: number, c: Rgb): void {
    x = Math.round(x);
    y = Math.round(y);
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return;
    this.px.set(c, (y * this.width + x) * 3);
  }

  rect(x: number, y: number, w: number, h: number, c: Rgb): void {
    for (let j = Math.round(y); j < Math.round(y + h); j++) for (let i = Math.round(x); i < Math.round(x + w); i++) this.set(i, j, c);
  }

  /** A line `thick` pixels wide, stepped along its longer axis. */
  line(x0: number, y0: number, x1: number, y1: number, c: Rgb, thick = 1): void {
    const steps = Math.max(1, Math.ceil(Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0))));
    const off = Math.floor((thick - 1) / 2);
    for (let s = 0; s <= steps; s++) {
      const x = x0 + ((x1 - x0) * s) / steps;
      const y = y0 + ((y1 - y0) * s) / steps;
      this.rect(Math.round(x) - off, Math.round(y) - off, thick, thick, c);
    }
  }

  /** Text whose top-left corner is (x, y); each font pixel drawn as scale×scale. Returns the width drawn. */
  text(x: number, y: number, s: string, c: Rgb, scale = 2): number {
    [...s].forEach((ch, k) => {
      for (let gy = 0; gy < GLYPH_H; gy++) {
        for (let gx = 0; gx < GLYPH_W; gx++) {
          if (glyphPixel(ch, gx, gy)) this.rect(x + (k * (GLYPH_W + 1) + gx) * scale, y + gy * scale, scale, scale, c);
        }
      }
    });
    return textWidth(s, scale);
  }

  png(): Buffer {
    return encodePng(this.width, this.height, this.px);
  }
}

export function textWidth(s: string, scale = 2): number {
  return Math.max(0, [...s].length * (GLYPH_W + 1) - 1) * scale;
}
