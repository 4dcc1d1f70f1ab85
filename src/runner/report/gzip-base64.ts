/**
 * gzip as base64 text, written piece by piece in bounded memory (the data of a large run's HTML page). The text is
 * compressed in batches of about GZIP_BATCH characters, each a raw deflate segment ended with a sync flush (the last
 * with the final block), so the segments together are one deflate stream; the gzip header and trailer (CRC-32 and
 * length) wrap it. Base64 is written in whole groups of three bytes, so the pieces join into one base64 text.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';

/** Characters compressed at a time: bigger compresses better, smaller holds less. */
export const GZIP_BATCH = 1 << 20;
/** gzip header: magic, deflate, no flags, no time, no extra flags, unknown OS. */
const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

export class Base64Gzip {
  private pending: string[] = [];
  private size = 0;
  private crc = 0;
  private length = 0;
  private carry: Buffer = Buffer.alloc(0);

  constructor(
    private readonly out: (text: string) => void,
    private readonly batch = GZIP_BATCH,
  ) {
    this.emit(HEADER);
  }

  write(text: string): void {
    this.pending.push(text);
    this.size += text.length;
    if (this.size >= this.batch) this.flush(false);
  }

  /** Compresses what is left and writes the trailer. */
  end(): void {
    this.flush(true);
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(this.crc >>> 0, 0);
    trailer.writeUInt32LE(this.length % 2 ** 32, 4);
    this.emit(trailer, true);
  }

  private flush(final: boolean): void {
    const data = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.size = 0;
    this.crc = crc32(data, this.crc);
    this.length += data.length;
    this.emit(deflateRawSync(data, { finishFlush: final ? constants.Z_FINISH : constants.Z_SYNC_FLUSH }));
  }

  private emit(bytes: Buffer, last = false): void {
    const all = this.carry.length > 0 ? Buffer.concat([this.carry, bytes]) : bytes;
    const whole = last ? all.length : all.length - (all.length % 3);
    if (whole > 0) this.out(all.subarray(0, whole).toString('base64'));
    this.carry = Buffer.from(all.subarray(whole));
  }
}
