//! Checking downloaded bytes are an image, and making a thumbnail when the provider has none.

use image::{DynamicImage, ImageFormat, ImageReader, Limits};
use std::io::Cursor;

/// The provider's thumbnail size (`ThumbSize=100`); made thumbnails fit in this square.
pub const THUMBNAIL_SIZE: u32 = 100;
/// Pictures larger than this are refused (the provider's are well under 1 MB).
pub const MAX_PICTURE_BYTES: usize = crate::limits::PICTURE_MAX_BYTES;

#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error("the picture is empty")]
    Empty,
    #[error("the picture is larger than {} MB", MAX_PICTURE_BYTES / 1024 / 1024)]
    TooLarge,
    #[error("the picture is not an image the server can read")]
    NotAnImage,
    #[error("the picture cannot be decoded: {0}")]
    Decode(String),
    #[error("the picture is {width}×{height} pixels: at most {} megapixels", crate::limits::PICTURE_MAX_PIXELS / 1_000_000)]
    TooManyPixels { width: u32, height: u32 },
}

/// The MIME type of image bytes, from their content rather than the sender's header.
pub fn sniff(bytes: &[u8]) -> Result<&'static str, ImageError> {
    if bytes.is_empty() {
        return Err(ImageError::Empty);
    }
    if bytes.len() > MAX_PICTURE_BYTES {
        return Err(ImageError::TooLarge);
    }
    let format = image::guess_format(bytes).map_err(|_| ImageError::NotAnImage)?;
    match format {
        ImageFormat::Png => Ok("image/png"),
        ImageFormat::Jpeg => Ok("image/jpeg"),
        ImageFormat::Gif => Ok("image/gif"),
        ImageFormat::WebP => Ok("image/webp"),
        ImageFormat::Bmp => Ok("image/bmp"),
        ImageFormat::Tiff => Ok("image/tiff"),
        _ => Err(ImageError::NotAnImage),
    }
}

/// A reader with the decode limits: sides, and what the decoder may allocate.
fn reader(bytes: &[u8]) -> Result<ImageReader<Cursor<&[u8]>>, ImageError> {
    use crate::limits::{PICTURE_MAX_DECODE_BYTES, PICTURE_MAX_SIDE};
    let mut reader =
        ImageReader::new(Cursor::new(bytes)).with_guessed_format().map_err(|e| ImageError::Decode(e.to_string()))?;
    let mut limits = Limits::default();
    limits.max_image_width = Some(PICTURE_MAX_SIDE);
    limits.max_image_height = Some(PICTURE_MAX_SIDE);
    limits.max_alloc = Some(PICTURE_MAX_DECODE_BYTES);
    reader.limits(limits);
    Ok(reader)
}

/// Decodes, after reading only the header to refuse pictures with too many pixels (a small file
/// can claim a huge image: a decompression bomb).
fn decode(bytes: &[u8]) -> Result<DynamicImage, ImageError> {
    let (width, height) = reader(bytes)?.into_dimensions().map_err(|e| ImageError::Decode(e.to_string()))?;
    if u64::from(width) * u64::from(height) > crate::limits::PICTURE_MAX_PIXELS {
        return Err(ImageError::TooManyPixels { width, height });
    }
    reader(bytes)?.decode().map_err(|e| ImageError::Decode(e.to_string()))
}

/// A thumbnail that fits in [`THUMBNAIL_SIZE`] square, keeping the aspect ratio: JPEG, or PNG
/// when the picture has transparency. A picture already that small is its own thumbnail.
pub fn make_thumbnail(bytes: &[u8]) -> Result<(Vec<u8>, &'static str), ImageError> {
    let content_type = sniff(bytes)?;
    let img = decode(bytes)?;
    if img.width() <= THUMBNAIL_SIZE && img.height() <= THUMBNAIL_SIZE {
        return Ok((bytes.to_vec(), content_type));
    }
    let small = img.thumbnail(THUMBNAIL_SIZE, THUMBNAIL_SIZE);
    let mut out = Cursor::new(Vec::new());
    let (small, format, mime) = if small.color().has_alpha() {
        (DynamicImage::ImageRgba8(small.to_rgba8()), ImageFormat::Png, "image/png")
    } else {
        (DynamicImage::ImageRgb8(small.to_rgb8()), ImageFormat::Jpeg, "image/jpeg")
    };
    small.write_to(&mut out, format).map_err(|e| ImageError::Decode(e.to_string()))?;
    Ok((out.into_inner(), mime))
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageBuffer, Rgb, Rgba};

    fn encode(img: DynamicImage, format: ImageFormat) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, format).expect("encode");
        out.into_inner()
    }

    #[test]
    fn thumbnails_fit_the_square_and_keep_the_aspect_ratio() {
        let wide = DynamicImage::ImageRgb8(ImageBuffer::from_pixel(400, 200, Rgb([10, 200, 30])));
        let (bytes, mime) = make_thumbnail(&encode(wide, ImageFormat::Png)).expect("thumbnail");
        assert_eq!(mime, "image/jpeg");
        let t = image::load_from_memory(&bytes).expect("a real image");
        assert_eq!((t.width(), t.height()), (100, 50));
    }

    #[test]
    fn transparency_stays_png_and_small_pictures_are_their_own_thumbnail() {
        let clear = DynamicImage::ImageRgba8(ImageBuffer::from_pixel(300, 300, Rgba([0, 0, 0, 0])));
        let (bytes, mime) = make_thumbnail(&encode(clear, ImageFormat::Png)).expect("thumbnail");
        assert_eq!(mime, "image/png");
        assert_eq!(image::load_from_memory(&bytes).expect("png").width(), 100);
        let small = encode(DynamicImage::ImageRgb8(ImageBuffer::from_pixel(40, 60, Rgb([1, 2, 3]))), ImageFormat::Jpeg);
        assert_eq!(make_thumbnail(&small).expect("small"), (small.clone(), "image/jpeg"));
    }

    #[test]
    fn non_images_are_refused() {
        assert!(matches!(sniff(b""), Err(ImageError::Empty)));
        assert!(matches!(sniff(b"<html>sign in</html>"), Err(ImageError::NotAnImage)));
        assert!(make_thumbnail(b"\x89PNG\r\n\x1a\nbroken").is_err());
    }

    /// CRC-32 as PNG chunks carry it.
    fn crc32(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in data {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }

    #[test]
    fn a_small_file_claiming_too_many_pixels_is_refused_before_decoding() {
        let mut png = encode(DynamicImage::ImageRgb8(ImageBuffer::from_pixel(1, 1, Rgb([1, 2, 3]))), ImageFormat::Png);
        // IHDR's width and height (bytes 16..24) say 11,000 × 11,000: within the sides, not the pixels.
        png[16..20].copy_from_slice(&11_000u32.to_be_bytes());
        png[20..24].copy_from_slice(&11_000u32.to_be_bytes());
        let crc = crc32(&png[12..29]);
        png[29..33].copy_from_slice(&crc.to_be_bytes());
        let err = make_thumbnail(&png).expect_err("too many pixels");
        assert!(matches!(err, ImageError::TooManyPixels { width: 11_000, height: 11_000 }), "{err}");
    }
}
