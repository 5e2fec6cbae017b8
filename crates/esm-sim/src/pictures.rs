//! Item pictures served at `/docs/SysImage.aspx`: small real images, PNG or JPEG by item, drawn
//! from the item id so the same item always gets the same picture.

use image::{ImageBuffer, Rgb};
use std::io::Cursor;

/// Picture bytes and MIME type for an item at a thumbnail size (100 or 500 in the provider's URLs).
pub fn render(item: u128, thumb: u32) -> (Vec<u8>, &'static str) {
    let size = if thumb <= 100 { 100 } else { 250 };
    let b = item.to_le_bytes();
    let (c1, c2) = (Rgb([b[0], b[1], b[2]]), Rgb([255 - b[3], 255 - b[4], 255 - b[5]]));
    let stripe = 8 + (b[6] as u32 % 24);
    let img = ImageBuffer::from_fn(size, size, |x, y| if ((x + y) / stripe).is_multiple_of(2) { c1 } else { c2 });
    let mut out = Cursor::new(Vec::new());
    let jpeg = b[7] % 2 == 1;
    let format = if jpeg { image::ImageFormat::Jpeg } else { image::ImageFormat::Png };
    if img.write_to(&mut out, format).is_err() {
        return (Vec::new(), "application/octet-stream");
    }
    (out.into_inner(), if jpeg { "image/jpeg" } else { "image/png" })
}

#[cfg(test)]
mod tests {
    #[test]
    fn pictures_are_real_images() {
        for id in [1u128, 2, 0x80, 0x81] {
            let (bytes, mime) = super::render(id << 56, 100);
            assert!(image::load_from_memory(&bytes).is_ok(), "{mime}");
        }
    }
}
