//! PWG raster (PWG 5102.4) encoder: the `RaS2` sync word, a 1796-byte big-endian header per
//! page, then each line run-length compressed (a line-repeat byte, then PackBits-style runs).

use super::Bitmap;

/// The pixel formats of `pwg-raster-document-type-supported` that we can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PwgType {
    /// 1 bit per pixel, 1 = black (`black_1`), what thermal label printers take.
    Black1,
    /// 8-bit grey, 0 = black (`sgray_8`).
    Sgray8,
    /// 8-bit RGB (`srgb_8`), for printers that take nothing else.
    Srgb8,
}

impl PwgType {
    pub fn keyword(self) -> &'static str {
        match self {
            PwgType::Black1 => "black_1",
            PwgType::Sgray8 => "sgray_8",
            PwgType::Srgb8 => "srgb_8",
        }
    }

    pub fn from_keyword(keyword: &str) -> Option<PwgType> {
        match keyword {
            "black_1" => Some(PwgType::Black1),
            "sgray_8" => Some(PwgType::Sgray8),
            "srgb_8" => Some(PwgType::Srgb8),
            _ => None,
        }
    }

    /// Our preference among what a printer supports: sharp black first, then grey, then colour.
    pub fn choose<'a>(supported: impl IntoIterator<Item = &'a str>) -> Option<PwgType> {
        let mut found: Vec<PwgType> = supported.into_iter().filter_map(PwgType::from_keyword).collect();
        found.sort_by_key(|t| match t {
            PwgType::Black1 => 0,
            PwgType::Sgray8 => 1,
            PwgType::Srgb8 => 2,
        });
        found.first().copied()
    }

    fn bytes_per_pixel(self) -> usize {
        match self {
            PwgType::Black1 | PwgType::Sgray8 => 1,
            PwgType::Srgb8 => 3,
        }
    }
}

pub const SYNC: &[u8; 4] = b"RaS2";
pub const HEADER_LEN: usize = 1796;

/// Encodes the pages into one PWG raster stream.
pub fn encode(pages: &[Bitmap], kind: PwgType) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + pages.len() * (HEADER_LEN + 8192));
    out.extend_from_slice(SYNC);
    for page in pages {
        encode_page(page, kind, pages.len() as u32, &mut out);
    }
    out
}

/// Appends one page (its header and compressed lines) to a stream that began with [`SYNC`]: a
/// long job is written page by page, holding one bitmap at a time.
pub fn encode_page(page: &Bitmap, kind: PwgType, total_pages: u32, out: &mut Vec<u8>) {
    let bytes_per_line = line_bytes(page.width, kind);
    out.extend_from_slice(&header(page, kind, bytes_per_line, total_pages));
    if page.height == 0 {
        return;
    }
    let mut y = 0;
    let mut line = convert_row(page.row(0), kind);
    while y < page.height {
        // Equal lines that follow are sent once with a repeat count.
        let mut repeat = 1;
        let mut next = None;
        while y + repeat < page.height && repeat < 256 {
            let candidate = convert_row(page.row(y + repeat), kind);
            if candidate != line {
                next = Some(candidate);
                break;
            }
            repeat += 1;
        }
        out.push((repeat - 1) as u8);
        compress_line(&line, kind.bytes_per_pixel(), out);
        y += repeat;
        match next {
            Some(n) => line = n,
            None if y < page.height => line = convert_row(page.row(y), kind),
            None => {}
        }
    }
}

fn line_bytes(width: u32, kind: PwgType) -> u32 {
    match kind {
        PwgType::Black1 => width.div_ceil(8),
        PwgType::Sgray8 => width,
        PwgType::Srgb8 => width * 3,
    }
}

fn convert_row(row: &[u8], kind: PwgType) -> Vec<u8> {
    match kind {
        PwgType::Black1 => {
            let mut out = vec![0u8; row.len().div_ceil(8)];
            for (x, p) in row.iter().enumerate() {
                if *p < 128 {
                    out[x / 8] |= 0x80 >> (x % 8);
                }
            }
            out
        }
        PwgType::Sgray8 => row.to_vec(),
        PwgType::Srgb8 => row.iter().flat_map(|p| [*p, *p, *p]).collect(),
    }
}

/// One line: `n` (0–127) repeats the next pixel n+1 times; `257 - n` (129–255) is followed by
/// n (2–128) literal pixels.
fn compress_line(line: &[u8], bpp: usize, out: &mut Vec<u8>) {
    let pixels: Vec<&[u8]> = line.chunks(bpp).collect();
    let n = pixels.len();
    let mut i = 0;
    while i < n {
        let mut run = 1;
        while i + run < n && run < 128 && pixels[i + run] == pixels[i] {
            run += 1;
        }
        if run > 1 || i + 1 == n {
            out.push((run - 1) as u8);
            out.extend_from_slice(pixels[i]);
            i += run;
            continue;
        }
        let start = i;
        i += 1;
        while i < n && i - start < 128 && !(i + 1 < n && pixels[i] == pixels[i + 1]) {
            i += 1;
        }
        let count = i - start;
        if count == 1 {
            out.push(0);
        } else {
            out.push((257 - count) as u8);
        }
        for p in &pixels[start..i] {
            out.extend_from_slice(p);
        }
    }
}

fn header(page: &Bitmap, kind: PwgType, bytes_per_line: u32, total_pages: u32) -> Vec<u8> {
    let mut h = vec![0u8; HEADER_LEN];
    let put_str = |h: &mut Vec<u8>, at: usize, s: &str| {
        h[at..at + s.len().min(63)].copy_from_slice(&s.as_bytes()[..s.len().min(63)])
    };
    let put = |h: &mut Vec<u8>, at: usize, v: u32| h[at..at + 4].copy_from_slice(&v.to_be_bytes());
    put_str(&mut h, 0, "PwgRaster");
    put(&mut h, 276, page.dpi);
    put(&mut h, 280, page.dpi);
    put(&mut h, 340, 1);
    // PageSize in points.
    put(&mut h, 352, (page.width as f32 * 72.0 / page.dpi as f32).round() as u32);
    put(&mut h, 356, (page.height as f32 * 72.0 / page.dpi as f32).round() as u32);
    put(&mut h, 372, page.width);
    put(&mut h, 376, page.height);
    let (bits_color, bits_pixel, space, colors) = match kind {
        PwgType::Black1 => (1, 1, 3, 1),
        PwgType::Sgray8 => (8, 8, 18, 1),
        PwgType::Srgb8 => (8, 24, 19, 3),
    };
    put(&mut h, 384, bits_color);
    put(&mut h, 388, bits_pixel);
    put(&mut h, 392, bytes_per_line);
    put(&mut h, 400, space);
    put(&mut h, 420, colors);
    put(&mut h, 452, total_pages);
    put(&mut h, 456, 1); // CrossFeedTransform
    put(&mut h, 460, 1); // FeedTransform
    put(&mut h, 480, 0x00ff_ffff); // AlternatePrimary: white
    h
}

/// Decodes a stream written by [`encode`] back to grey bitmaps (tests and diagnostics).
pub fn decode(data: &[u8]) -> Option<Vec<Bitmap>> {
    let rd = |at: usize| -> Option<u32> { Some(u32::from_be_bytes(data.get(at..at + 4)?.try_into().ok()?)) };
    if data.get(..4)? != SYNC {
        return None;
    }
    let mut pos = 4;
    let mut pages = Vec::new();
    while pos < data.len() {
        let h = pos;
        let (dpi, width, height, bpp, space) = (rd(h + 276)?, rd(h + 372)?, rd(h + 376)?, rd(h + 388)?, rd(h + 400)?);
        let bytes_per_line = rd(h + 392)? as usize;
        let pixel = (bpp as usize / 8).max(1);
        pos += HEADER_LEN;
        let mut bitmap = Bitmap::blank(width, height, dpi);
        let mut y = 0;
        while y < height {
            let repeat = *data.get(pos)? as u32 + 1;
            pos += 1;
            let mut line = Vec::with_capacity(bytes_per_line);
            while line.len() < bytes_per_line {
                let c = *data.get(pos)?;
                pos += 1;
                if c <= 127 {
                    let px = data.get(pos..pos + pixel)?;
                    for _ in 0..=c {
                        line.extend_from_slice(px);
                    }
                    pos += pixel;
                } else {
                    let n = (257 - c as usize) * pixel;
                    line.extend_from_slice(data.get(pos..pos + n)?);
                    pos += n;
                }
            }
            let grey: Vec<u8> = match space {
                3 => (0..width as usize).map(|x| if line[x / 8] & (0x80 >> (x % 8)) != 0 { 0 } else { 255 }).collect(),
                19 => line.chunks(3).map(|p| p[0]).collect(),
                _ => line[..width as usize].to_vec(),
            };
            for _ in 0..repeat.min(height - y) {
                let w = width as usize;
                bitmap.pixels[y as usize * w..(y as usize + 1) * w].copy_from_slice(&grey[..w]);
                y += 1;
            }
        }
        pages.push(bitmap);
    }
    Some(pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Bitmap {
        let mut b = Bitmap::blank(37, 9, 203);
        for y in 2..6 {
            for x in 3..20 {
                b.pixels[y * 37 + x] = 0;
            }
        }
        b.pixels[8 * 37 + 36] = 0;
        b.pixels[8 * 37 + 34] = 0;
        b
    }

    #[test]
    fn header_layout_follows_pwg_5102_4() {
        let data = encode(&[sample()], PwgType::Sgray8);
        assert_eq!(&data[..4], b"RaS2");
        assert_eq!(&data[4..13], b"PwgRaster");
        let rd = |at: usize| u32::from_be_bytes(data[4 + at..8 + at].try_into().unwrap());
        assert_eq!((rd(276), rd(280)), (203, 203));
        assert_eq!((rd(372), rd(376)), (37, 9));
        assert_eq!((rd(384), rd(388), rd(392), rd(400), rd(420)), (8, 8, 37, 18, 1));
    }

    #[test]
    fn every_type_round_trips() {
        let original = sample();
        for kind in [PwgType::Black1, PwgType::Sgray8, PwgType::Srgb8] {
            let decoded = decode(&encode(&[original.clone(), original.clone()], kind)).unwrap();
            assert_eq!(decoded.len(), 2, "{kind:?}");
            assert_eq!(decoded[0], original, "{kind:?}");
        }
    }

    #[test]
    fn runs_compress() {
        let blank = Bitmap::blank(1000, 1000, 300);
        let data = encode(&[blank], PwgType::Sgray8);
        assert!(data.len() < 4 + HEADER_LEN + 100, "{}", data.len());
    }

    #[test]
    fn choice_prefers_black() {
        assert_eq!(PwgType::choose(["srgb_8", "sgray_8"]), Some(PwgType::Sgray8));
        assert_eq!(PwgType::choose(["black_1", "srgb_8"]), Some(PwgType::Black1));
        assert_eq!(PwgType::choose(["cmyk_8"]), None);
    }
}
