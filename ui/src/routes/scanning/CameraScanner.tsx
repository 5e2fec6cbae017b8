import { useEffect, useRef, useState } from 'react'
import { t } from '../../i18n/index.ts'

/** The browser's own decoder (Chrome on Android, Edge, Safari 17+); no library is loaded. */
interface Detector {
  detect(source: HTMLVideoElement): Promise<{ rawValue: string }[]>
}
type DetectorClass = new (opts?: { formats?: string[] }) => Detector

function detectorClass(): DetectorClass | null {
  return (globalThis as { BarcodeDetector?: DetectorClass }).BarcodeDetector ?? null
}

/** Why the camera cannot be used here, or null when it can. */
export function cameraUnavailable(): string | null {
  if (!window.isSecureContext) return t('scanning.cameraInsecure')
  if (!navigator.mediaDevices?.getUserMedia) return t('scanning.cameraNone')
  if (!detectorClass()) return t('scanning.cameraNoDecoder')
  return null
}

/** The back camera, read a few times a second until a code shows. */
export function CameraScanner({ onScan, onClose }: { onScan: (code: string) => void; onClose: () => void }) {
  const video = useRef<HTMLVideoElement>(null)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    const Detector = detectorClass()
    if (!Detector) return
    let stream: MediaStream | null = null
    let timer: ReturnType<typeof setTimeout> | undefined
    let stopped = false
    const detector = new Detector()
    const tick = async () => {
      if (stopped || !video.current) return
      try {
        const found = await detector.detect(video.current)
        if (found.length > 0 && !stopped) {
          onScan(found[0].rawValue)
          onClose()
          return
        }
      } catch {
        // a frame that could not be read: try the next one
      }
      timer = setTimeout(tick, 250)
    }
    navigator.mediaDevices
      .getUserMedia({ video: { facingMode: 'environment' }, audio: false })
      .then(async (s) => {
        stream = s
        if (stopped || !video.current) return
        video.current.srcObject = s
        await video.current.play()
        void tick()
      })
      .catch((e: unknown) => setError(t('scanning.cameraFailed', { message: e instanceof Error ? e.message : String(e) })))
    return () => {
      stopped = true
      clearTimeout(timer)
      stream?.getTracks().forEach((track) => track.stop())
    }
  }, [onScan, onClose])

  return (
    <div className="flex flex-col gap-2 rounded-lg bg-black p-2">
      {error ? (
        <p role="alert" className="p-3 text-white">
          {error}
        </p>
      ) : (
        <video ref={video} muted playsInline className="max-h-72 w-full rounded object-cover" aria-label={t('scanning.cameraView')} />
      )}
      <button type="button" onClick={onClose} className="min-h-12 rounded-md bg-white/90 px-4 font-medium text-slate-900">
        {t('scanning.cameraClose')}
      </button>
    </div>
  )
}
