import { useEffect, useRef, useState } from 'react'
import { t } from '../../i18n/index.ts'
import { CAMERA_FORMATS, detectorClass, type Detector } from './decoder.ts'

/** Why the camera cannot be used here, or null when it can. */
export function cameraUnavailable(): string | null {
  if (!window.isSecureContext) return t('scanning.cameraInsecure')
  if (!navigator.mediaDevices?.getUserMedia) return t('scanning.cameraNone')
  return null
}

/** The back camera, read a few times a second until a code shows. */
export function CameraScanner({ onScan, onClose }: { onScan: (code: string) => void; onClose: () => void }) {
  const video = useRef<HTMLVideoElement>(null)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    let stream: MediaStream | null = null
    let timer: ReturnType<typeof setTimeout> | undefined
    let stopped = false
    let detector: Detector | null = null
    let playing = false
    let started = false
    const tick = async () => {
      if (stopped || !video.current || !detector) return
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
    const start = () => {
      if (started || stopped || !playing || !detector) return
      started = true
      void tick()
    }
    navigator.mediaDevices
      .getUserMedia({ video: { facingMode: 'environment' }, audio: false })
      .then(async (s) => {
        stream = s
        if (stopped || !video.current) return
        video.current.srcObject = s
        await video.current.play()
        playing = true
        start()
      })
      .catch((e: unknown) => setError(t('scanning.cameraFailed', { message: e instanceof Error ? e.message : String(e) })))
    // the decoder loads while the camera starts; whichever is ready last starts the reading
    detectorClass()
      .then((Decoder) => {
        if (stopped) return
        detector = new Decoder({ formats: CAMERA_FORMATS })
        start()
      })
      .catch(() => {
        if (stopped) return
        stream?.getTracks().forEach((track) => track.stop())
        setError(t('scanning.cameraDecoderFailed'))
      })
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
