// The WebSocket text frame written by the fan-out (src/streams/textFrame.ts): the header of the
// latin1-string path is byte for byte the header of the Buffer path, at each length encoding's bounds.
import { describe, expect, it } from 'vitest'
import { textFrame, textFrameHeader } from '../../src/streams/textFrame.js'

describe('textFrameHeader', () => {
  it('is the header textFrame writes, for 7-, 16- and 64-bit lengths', () => {
    for (const n of [0, 1, 125, 126, 127, 255, 256, 65_535, 65_536, 70_000]) {
      const body = Buffer.alloc(n, 'a')
      const frame = textFrame(Buffer.alloc(0), body)
      const header = Buffer.from(textFrameHeader(n), 'latin1')
      expect(header.equals(frame.subarray(0, frame.length - n)), `length ${n}`).toBe(true)
    }
  })
})
