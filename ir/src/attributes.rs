//! Attributes built from bytes, typed (no attribute text).

use melior::ir::r#type::{IntegerType, RankedTensorType};
use melior::ir::{Attribute, Type, TypeLike};
use melior::Context;

/// `dense<...> : tensor<size x i8>`: a variable's initial bytes, a splat of zero when every
/// byte is (or `bytes` is `None`). `None` when the bytes are not `size` long.
pub fn dense_bytes_attribute<'c>(
    ctx: &'c Context,
    size: u64,
    bytes: Option<&[u8]>,
) -> Option<Attribute<'c>> {
    let byte = IntegerType::new(ctx, 8).into();
    let tensor: Type = RankedTensorType::new(&[size], byte, None).into();
    let nonzero = bytes.filter(|b| b.iter().any(|b| *b != 0));
    // SAFETY: plain constructors on a live context; MLIR copies the bytes.
    unsafe {
        Some(Attribute::from_raw(match nonzero {
            None => mlir_sys::mlirDenseElementsAttrUInt8SplatGet(tensor.to_raw(), 0),
            Some(b) if b.len() as u64 == size => mlir_sys::mlirDenseElementsAttrUInt8Get(
                tensor.to_raw(),
                b.len() as isize,
                b.as_ptr(),
            ),
            Some(_) => return None,
        }))
    }
}
