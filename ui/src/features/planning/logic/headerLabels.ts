// Labels of the timeline's header cells that fit their cell: a narrow cell (a small scale, a
// month cut by the axis) gets the shorter form instead of a label cut off mid-word.

/** Width of one character of the header's text (11 px digits and letters, generous) and padding. */
const CHAR_PX = 7
const PAD_PX = 6

/** The first of `candidates` (longest first) that fits `width` pixels, or '' when none does. */
export function fitLabel(width: number, candidates: readonly string[]): string {
  for (const c of candidates) if (c.length * CHAR_PX + PAD_PX <= width) return c
  return ''
}
