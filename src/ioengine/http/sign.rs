//! The headers fio's http engine adds in its S3 and Swift modes
//! (`_add_aws_auth_header`, `_add_swift_header` of fio-3.33's
//! `engines/http.c`): an AWS Signature Version 4 over fio's canonical
//! request, the SSE-C customer key headers, Swift's token and etag; and
//! the hashes and encodings they use (fio's `_aws_uriencode`,
//! `_conv_hex`, `_conv_base64_encode`, `_hmac`).

use md5::Md5;
use sha2::{Digest, Sha256};

use super::HttpOptions;
use crate::ddir::Ddir;

/// Lower-case hex of `bytes` (fio's `_conv_hex`).
pub(super) fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 15)] as char);
    }
    s
}

/// Standard base64 with padding (fio's `_conv_base64_encode`).
pub(super) fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                s.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

pub(super) fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

pub(super) fn md5_hex(data: &[u8]) -> String {
    hex(&Md5::digest(data))
}

/// HMAC-SHA256 (RFC 2104) of `data` with `key`.
pub(super) fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut k = [0u8; BLOCK];
    if key.len() > BLOCK {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(k.map(|b| b ^ 0x36));
    inner.update(data);
    let mut outer = Sha256::new();
    outer.update(k.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// fio's `_aws_uriencode`: letters, digits and `_-~./` as they are, every
/// other byte as `%XX` (upper-case hex).
pub(super) fn aws_uriencode(uri: &str) -> String {
    let mut s = String::with_capacity(uri.len());
    for b in uri.bytes() {
        if b.is_ascii_alphanumeric() || b"_-~./".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// The method fio's S3 signature names for a direction (a trim is a
/// DELETE; fio signs anything else but a write as a GET).
fn s3_method(dir: Ddir) -> &'static str {
    match dir {
        Ddir::Write => "PUT",
        Ddir::Trim => "DELETE",
        _ => "GET",
    }
}

/// fio's S3 headers for one request (`Accept:` to drop curl's, the
/// content hash, the date, the SSE-C headers when there is a customer key,
/// the storage class, the authorization), signed at `date_iso`
/// (`YYYYMMDDTHHMMSSZ`), in fio's order.
pub(super) fn s3_headers(
    o: &HttpOptions,
    dir: Ddir,
    object: &str,
    body: &[u8],
    date_iso: &str,
) -> Vec<(String, String)> {
    let date_short = &date_iso[..8];
    let dsha = if dir == Ddir::Write {
        sha256_hex(body)
    } else {
        sha256_hex(b"")
    };
    // fio copies at most 32 bytes of the key into a zeroed 33-byte buffer
    // and encodes all 32.
    let mut sse_key = [0u8; 32];
    let k = o.s3_sse_customer_key.as_bytes();
    let n = k.len().min(32);
    sse_key[..n].copy_from_slice(&k[..n]);
    // (strncpy stops at a NUL.)
    let sse = sse_key[0] != 0;
    let (key64, key_md5) = if sse {
        (base64(&sse_key), base64(&Md5::digest(sse_key)))
    } else {
        (String::new(), String::new())
    };
    let method = s3_method(dir);
    let uri = aws_uriencode(object);
    let creq = if sse {
        format!(
            "{method}\n{uri}\n\nhost:{}\nx-amz-content-sha256:{dsha}\nx-amz-date:{date_iso}\n\
             x-amz-server-side-encryption-customer-algorithm:{}\n\
             x-amz-server-side-encryption-customer-key:{key64}\n\
             x-amz-server-side-encryption-customer-key-md5:{key_md5}\n\
             x-amz-storage-class:{}\n\n\
             host;x-amz-content-sha256;x-amz-date;\
             x-amz-server-side-encryption-customer-algorithm;\
             x-amz-server-side-encryption-customer-key;\
             x-amz-server-side-encryption-customer-key-md5;\
             x-amz-storage-class\n{dsha}",
            o.host, o.s3_sse_customer_algorithm, o.s3_storage_class
        )
    } else {
        format!(
            "{method}\n{uri}\n\nhost:{}\nx-amz-content-sha256:{dsha}\nx-amz-date:{date_iso}\n\
             x-amz-storage-class:{}\n\nhost;x-amz-content-sha256;x-amz-date;x-amz-storage-class\n\
             {dsha}",
            o.host, o.s3_storage_class
        )
    };
    let csha = sha256_hex(creq.as_bytes());
    let region = &o.s3_region;
    let sts =
        format!("AWS4-HMAC-SHA256\n{date_iso}\n{date_short}/{region}/s3/aws4_request\n{csha}");
    let mut md = hmac_sha256(
        format!("AWS4{}", o.s3_key).as_bytes(),
        date_short.as_bytes(),
    );
    for part in [region.as_bytes(), b"s3", b"aws4_request", sts.as_bytes()] {
        md = hmac_sha256(&md, part);
    }
    let signature = hex(&md);
    let mut h = vec![
        ("Accept".to_string(), String::new()),
        ("x-amz-content-sha256".into(), dsha),
        ("x-amz-date".into(), date_iso.to_string()),
    ];
    if sse {
        h.push((
            "x-amz-server-side-encryption-customer-algorithm".into(),
            o.s3_sse_customer_algorithm.clone(),
        ));
        h.push(("x-amz-server-side-encryption-customer-key".into(), key64));
        h.push((
            "x-amz-server-side-encryption-customer-key-md5".into(),
            key_md5,
        ));
    }
    h.push(("x-amz-storage-class".into(), o.s3_storage_class.clone()));
    let signed = if sse {
        "host;x-amz-content-sha256;x-amz-date;x-amz-server-side-encryption-customer-algorithm;\
         x-amz-server-side-encryption-customer-key;x-amz-server-side-encryption-customer-key-md5;\
         x-amz-storage-class"
    } else {
        "host;x-amz-content-sha256;x-amz-date;x-amz-storage-class"
    };
    h.push((
        "Authorization".into(),
        format!(
            "AWS4-HMAC-SHA256 Credential={}/{date_short}/{region}/s3/aws4_request,\
             SignedHeaders={signed},Signature={signature}",
            o.s3_keyid
        ),
    ));
    h
}

/// fio's Swift headers: `Accept:` to drop curl's, the body's MD5 as the
/// etag of a write (fio prints a NULL pointer, `(null)`, for the others),
/// the auth token.
pub(super) fn swift_headers(o: &HttpOptions, dir: Ddir, body: &[u8]) -> Vec<(String, String)> {
    let etag = if dir == Ddir::Write {
        md5_hex(body)
    } else {
        "(null)".into()
    };
    vec![
        ("Accept".to_string(), String::new()),
        ("etag".into(), etag),
        ("x-auth-token".into(), o.swift_auth_token.clone()),
    ]
}

/// `YYYYMMDDTHHMMSSZ` of `secs` since the epoch (UTC).
pub(super) fn iso_date(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_sha256_of_rfc_4231() {
        // RFC 4231 test cases 1 and 2.
        assert_eq!(
            hex(&hmac_sha256(&[0x0b; 20], b"Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(
            hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Case 6: a key longer than the block.
        assert_eq!(
            hex(&hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn encodings_as_fio() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(aws_uriencode("/b/o bj_1-2~x.y"), "/b/o%20bj_1-2~x.y");
        assert_eq!(aws_uriencode("a+é"), "a%2B%C3%A9");
        assert_eq!(iso_date(0), "19700101T000000Z");
        assert_eq!(iso_date(1_796_149_360), "20261201T182240Z");
        assert_eq!(iso_date(951_782_400), "20000229T000000Z");
    }

    /// AWS's own example of a signing key (sigv4 docs, "Deriving the
    /// signing key": secret wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY,
    /// 20120215, us-east-1, iam).
    #[test]
    fn signing_key_as_aws_derives_it() {
        let mut k = hmac_sha256(b"AWS4wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", b"20120215");
        for p in [&b"us-east-1"[..], b"iam", b"aws4_request"] {
            k = hmac_sha256(&k, p);
        }
        assert_eq!(
            hex(&k),
            "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"
        );
    }

    #[test]
    fn s3_headers_name_what_they_sign() {
        let o = HttpOptions {
            host: "bucket.example".into(),
            s3_keyid: "AKID".into(),
            s3_key: "secret".into(),
            ..HttpOptions::default()
        };
        let h = s3_headers(&o, Ddir::Write, "/obj_0_4", b"data", "20261201T182240Z");
        let names: Vec<&str> = h.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "Accept",
                "x-amz-content-sha256",
                "x-amz-date",
                "x-amz-storage-class",
                "Authorization"
            ]
        );
        assert_eq!(h[1].1, sha256_hex(b"data"));
        assert!(h[4].1.starts_with(
            "AWS4-HMAC-SHA256 Credential=AKID/20261201/us-east-1/s3/aws4_request,\
             SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,Signature="
        ));
        let o = HttpOptions {
            s3_sse_customer_key: "k".repeat(40),
            ..o
        };
        let h = s3_headers(&o, Ddir::Read, "/obj", b"", "20261201T182240Z");
        assert_eq!(h[3].1, "AES256");
        assert_eq!(h[4].1, base64(&[b'k'; 32]));
        assert_eq!(h[5].1, base64(&Md5::digest([b'k'; 32])));
        assert_eq!(h[1].1, sha256_hex(b""));
        let s = swift_headers(&o, Ddir::Read, b"");
        assert_eq!(s[1], ("etag".into(), "(null)".into()));
    }
}
