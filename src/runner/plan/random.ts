const HEX = '0123456789abcdef';
const UUID_DIGITS: number[] = new Array<number>(32).fill(0);

/** Deterministic pseudo-random numbers (mulberry32) seeded from a string: the same seed gives the same requests. */
export class Random {
  private state: number;

  constructor(seed: string) {
    let h = 1779033703 ^ seed.length;
    for (let i = 0; i < seed.length; i++) {
      h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
      h = (h << 13) | (h >>> 19);
    }
    this.state = h >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return Math.floor(this.next() * (max - min + 1)) + min;
  }

  /** A version-4 UUID drawn from this generator. */
  uuid(): string {
    // 32 draws, then the variant's: the same UUIDs for a seed as ever.
    const digits = UUID_DIGITS;
    for (let i = 0; i < 32; i++) digits[i] = this.int(0, 15);
    digits[12] = 4;
    digits[16] = (this.int(0, 15) & 0x3) | 0x8;
    let s = '';
    for (let i = 0; i < 32; i++) s += (i === 8 || i === 12 || i === 16 || i === 20 ? '-' : '') + HEX[digits[i]!];
    return s;
  }

  word(length: number): string {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    return Array.from({ length }, () => alphabet[this.int(0, alphabet.length - 1)]).join('');
  }
}
