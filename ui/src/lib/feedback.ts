// A scanner's answer the user hears and feels: a short high beep and a buzz on success, a low
// double beep and a longer buzz on failure (gloves, noise, eyes on the shelf).

let audio: AudioContext | null = null

function tone(ctx: AudioContext, freq: number, start: number, ms: number) {
  const osc = ctx.createOscillator()
  const gain = ctx.createGain()
  osc.type = 'square'
  osc.frequency.value = freq
  gain.gain.value = 0.08
  osc.connect(gain).connect(ctx.destination)
  osc.start(ctx.currentTime + start)
  osc.stop(ctx.currentTime + start + ms / 1000)
}

export function signal(ok: boolean): void {
  try {
    const Ctx = globalThis.AudioContext ?? (globalThis as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext
    if (Ctx) {
      audio ??= new Ctx()
      if (audio.state === 'suspended') void audio.resume()
      if (ok) tone(audio, 1760, 0, 90)
      else {
        tone(audio, 220, 0, 150)
        tone(audio, 220, 0.2, 150)
      }
    }
  } catch {
    // no sound on this device: the message on screen still says it
  }
  try {
    navigator.vibrate?.(ok ? 60 : [150, 80, 150])
  } catch {
    // vibration blocked (no user gesture yet, or no motor)
  }
}
