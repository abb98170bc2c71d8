//! Legacy texture references (`texture<T, dim, mode>` globals, `hipBindTexture*`,
//! `hipTexRefSetAddress*`/`Array`, `hipModuleGetTexRef`).
//!
//! A texture reference is a device variable whose host shadow is the program's
//! `textureReference` (see `headers/hip/hipmlir_texture_types.h`): its fields say how to sample.
//! Binding one creates a texture object from those fields and the resource, keeps it in the
//! host's `textureObject`, and stores the whole reference into the device's copy, through whose
//! `textureObject` device code reads (`hipmlir_texture.h`). Rebinding or unbinding destroys the
//! previous object. A reference the driver API hands out (`hipModuleGetTexRef`) is the runtime's
//! own, one per module variable, and binds that variable alike. A `textureReference` that is no
//! device variable at all (a local the program fills for the API) is bound as host state only.

use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::arrays::ChannelFormatDesc;
use crate::backend::{ops, Copy3d, Device, MemcpyKind};
use crate::error::{Failure, HipResult};
use crate::registry::Module;
use crate::symbols;
use crate::texture::{self, ResourceDesc, TextureDesc};

/// HIP's `textureReference` (texture_types.h), field for field.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct TextureReference {
    pub normalized: c_int,
    pub read_mode: c_int,
    pub filter_mode: c_int,
    pub address_mode: [c_int; 3],
    pub channel_desc: ChannelFormatDesc,
    pub srgb: c_int,
    pub max_anisotropy: c_uint,
    pub mipmap_filter_mode: c_int,
    pub mipmap_level_bias: f32,
    pub min_mipmap_level_clamp: f32,
    pub max_mipmap_level_clamp: f32,
    pub texture_object: usize,
    pub num_channels: c_int,
    pub format: c_int,
}

impl TextureReference {
    /// The sampler state a bound object gets: the reference's fields (it has no border colour,
    /// which reads as zeros).
    fn texture_desc(&self) -> TextureDesc {
        TextureDesc {
            address_mode: self.address_mode,
            filter_mode: self.filter_mode,
            read_mode: self.read_mode,
            srgb: self.srgb,
            border_color: [0.0; 4],
            normalized_coords: self.normalized,
            max_anisotropy: self.max_anisotropy,
            mipmap_filter_mode: self.mipmap_filter_mode,
            mipmap_level_bias: self.mipmap_level_bias,
            min_mipmap_level_clamp: self.min_mipmap_level_clamp,
            max_mipmap_level_clamp: self.max_mipmap_level_clamp,
        }
    }
}

/// A module variable: the module and the variable's index in its metadata.
type ModuleVariable = (Arc<Module>, usize);

/// The references `hipModuleGetTexRef` handed out, by address: the module variable each binds.
/// They live as long as the process (a handle is never reused for another variable).
fn module_references() -> MutexGuard<'static, HashMap<usize, ModuleVariable>> {
    static R: OnceLock<Mutex<HashMap<usize, ModuleVariable>>> = OnceLock::new();
    R.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// The runtime's reference for variable `index` of `module` (the same one each time).
pub fn of_module_variable(module: &Arc<Module>, index: usize) -> *mut TextureReference {
    let mut refs = module_references();
    let existing = refs
        .iter()
        .find(|(_, (m, i))| Arc::ptr_eq(m, module) && *i == index)
        .map(|(&address, _)| address);
    let address = existing.unwrap_or_else(|| {
        let address = Box::into_raw(Box::<TextureReference>::default()) as usize;
        refs.insert(address, (module.clone(), index));
        address
    });
    address as *mut TextureReference
}

/// The device variable a reference stands for, if any: one `hipModuleGetTexRef` handed out, or
/// a program's `texture<...>` global (its shadow's address).
fn device_copy(reference: *const TextureReference) -> Option<ModuleVariable> {
    let address = reference as usize;
    if let Some(found) = module_references().get(&address).cloned() {
        return Some(found);
    }
    symbols::find(reference.cast())
        .ok()
        .map(|v| (v.module, v.index))
}

/// The byte offset each bound reference's reads start at past its object's base (binds of
/// memory that is not texture-aligned bind the aligned address below it, as CUDA does).
fn offsets() -> MutexGuard<'static, HashMap<usize, usize>> {
    static O: OnceLock<Mutex<HashMap<usize, usize>>> = OnceLock::new();
    O.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// The offset the last bind of `reference` returned (0 when unbound).
pub fn alignment_offset(reference: *const TextureReference) -> usize {
    offsets().get(&(reference as usize)).copied().unwrap_or(0)
}

/// Copies the host's reference into the device's copy (on `device`), if it has one.
fn store(device: &dyn Device, reference: &TextureReference) -> HipResult<()> {
    let Some((module, index)) = device_copy(reference) else {
        return Ok(());
    };
    let (address, size) = device.variable(&module, index)?;
    let bytes = size.min(std::mem::size_of::<TextureReference>());
    let copy = Copy3d::linear(
        address as *mut c_void,
        (reference as *const TextureReference).cast(),
        bytes,
    );
    ops::copy(&device.null_stream(), &copy, MemcpyKind::HostToDevice, true)
}

/// Binds `reference` to `resource` on `device`: a new texture object from the reference's
/// sampler state replaces the one bound before, in the host's reference and the device's copy.
///
/// # Safety
/// `reference` is a live `textureReference` of the program's (or one the runtime handed out),
/// not used elsewhere during the call.
pub unsafe fn bind(
    device: &dyn Device,
    reference: *mut TextureReference,
    resource: &ResourceDesc,
    offset: usize,
) -> HipResult<()> {
    // SAFETY: per the caller.
    let r = unsafe { reference.as_mut() }
        .ok_or_else(|| Failure::invalid_value("the texture reference is null"))?;
    let object = texture::create(device, resource, &r.texture_desc(), None)?;
    let previous = std::mem::replace(&mut r.texture_object, object);
    release(device, previous);
    offsets().insert(reference as usize, offset);
    store(device, r)
}

/// Unbinds `reference`: its object is destroyed and the device's copy reads no texture.
///
/// # Safety
/// As [`bind`].
pub unsafe fn unbind(device: &dyn Device, reference: *mut TextureReference) -> HipResult<()> {
    // SAFETY: per the caller.
    let r = unsafe { reference.as_mut() }
        .ok_or_else(|| Failure::invalid_value("the texture reference is null"))?;
    let previous = std::mem::take(&mut r.texture_object);
    release(device, previous);
    offsets().remove(&(reference as usize));
    store(device, r)
}

/// Destroys a reference's previous object; a value that is no live object (a reference never
/// bound holds whatever its program put there) is left alone.
fn release(device: &dyn Device, object: usize) {
    if object != 0 && texture::object(object).is_ok() {
        let _ = texture::destroy(device, object);
    }
}

/// What `reference` is bound to: its live object's resource description.
///
/// # Safety
/// `reference` is null or a live `textureReference`.
pub unsafe fn bound_resource(reference: *const TextureReference) -> HipResult<ResourceDesc> {
    // SAFETY: per the caller.
    let r = unsafe { reference.as_ref() }
        .ok_or_else(|| Failure::invalid_value("the texture reference is null"))?;
    texture::descriptions(r.texture_object)
        .map(|(resource, _)| resource)
        .map_err(|_| Failure::invalid_value("the texture reference is not bound"))
}
