//! `new` and `delete` in device code, as C++ defines them over the allocation functions clang
//! chose: hipmlir's device header defines the global `operator new`/`delete` over the device
//! heap (`hip/hipmlir_heap.h`) and the placement forms; a class may have its own.
//!
//! * `new T(args)`, `new T{...}`, `new T`: the allocation function gets `sizeof(T)` (and the
//!   placement arguments); when it returns a pointer (device code has no exceptions: a failed
//!   allocation is null, and nothing is constructed) the object is initialized there as a local
//!   of type `T` with that initializer would be.
//! * `new T[n]`: `n * sizeof(T)` bytes, each element default-constructed (or initialized from a
//!   braced list, the rest zeroed). When `T` has a destructor, a cookie holding `n` comes first
//!   (as in the Itanium C++ ABI), so that `delete[]` knows how many elements to destroy.
//! * `delete p`, `delete[] p`: nothing for a null pointer; else the destructor (each element's,
//!   last first; a virtual one the dynamic class's), then the deallocation function (with the
//!   size when it takes one) on the whole object, also when `p` points to a base elsewhere in it.
//!
//! * An over-aligned type (`alignas(64)`) is allocated and freed by the aligned allocation
//!   functions, which take its alignment (`std::align_val_t`).

use melior::dialect::arith::{self, CmpiPredicate};
use melior::ir::Location;

use super::analysis::assigned_vars;
use super::builder::{internal, Value};
use super::expr::{GepIndex, LValue};
use super::function::{FunctionCodegen, Val};
use super::module::FunctionSig;
use super::stmt::constructor_call;
use super::virtual_bases::has_virtual_bases;
use crate::clang::{CType, Cursor, DeclNode};
use crate::error::{FrontendError, Result};
use crate::types::{pointer_type, AddrSpace, Ty};

/// A size that no allocation can satisfy: what `new T[n]` asks for when `n * sizeof(T)`
/// overflows, so that the allocation fails as C++ requires.
const IMPOSSIBLE_SIZE: i64 = -1;

impl<'c> FunctionCodegen<'c, '_> {
    /// A new-expression: the address of the new object (or first element), null when the
    /// allocation failed.
    pub fn new_expression(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let parts = e
            .new_parts()
            .ok_or_else(|| FrontendError::unsupported(e.location(), "this form of new"))?;
        let element_ctype = e.ty().pointee();
        let element = Ty::from_clang(element_ctype, &e.location())?;
        // An over-aligned type's allocation function takes its alignment (`std::align_val_t`).
        let alignment = parts.pass_alignment.then(|| element.align());
        let operator_new = self.allocation_function(parts.operator_new, &element_ctype, e)?;
        let size = self
            .b
            .const_int(Ty::LONG.value_mlir(self.ctx()), element.size() as i64, loc)?;
        // An array whose elements have destructors gets a cookie: its element count.
        let cookie = match parts.is_array && destructor(&element_ctype, e)?.is_some() {
            true => element.align().max(8) as i64,
            false => 0,
        };
        let count = match &parts.array_size {
            Some(n) if parts.is_array => Some(self.rvalue_as(n, &Ty::LONG)?.scalar()),
            _ => None,
        };
        let bytes = match count {
            Some(n) => self.array_bytes(n, element.size(), cookie, loc)?,
            None => size,
        };
        let memory = self.call_allocation(&operator_new, bytes, alignment, &parts.placement, e)?;

        // Initialize only what was allocated.
        let null = self.null_pointer(loc)?.scalar();
        let got = self.pointers_differ(memory, null, loc)?;
        let carried = match &parts.initializer {
            Some(init) => assigned_vars(init, self.targets()),
            None => Vec::new(),
        };
        let generic = pointer_type(self.ctx(), AddrSpace::Generic);
        let result = self.emit_if(
            got,
            &carried,
            &[generic],
            |this| {
                let object = match count {
                    Some(n) if cookie != 0 => {
                        let object = this.byte_offset(memory, cookie, loc)?;
                        let slot = this.byte_offset(object, -8, loc)?;
                        this.store(
                            &LValue::Mem {
                                ptr: slot,
                                ty: Ty::LONG,
                                volatile: false,
                            },
                            Val::Scalar(n),
                            loc,
                        )?;
                        object
                    }
                    _ => memory,
                };
                if parts.zeroes {
                    match count {
                        None => this.zero_fill(object, &element, loc)?,
                        Some(n) => {
                            let element_ty = element.clone();
                            this.for_each_element(object, &element, n, false, e, |this, at| {
                                this.zero_fill(at, &element_ty, loc)
                            })?
                        }
                    }
                }
                match (count, &parts.initializer) {
                    (_, None) => {}
                    (None, Some(init)) => this.initialize(object, &element, init)?,
                    (Some(n), Some(init)) => this.initialize_array(object, &element, n, init)?,
                }
                Ok(vec![object])
            },
            |_| Ok(vec![null]),
            loc,
        )?;
        Ok(Val::Scalar(result[0]))
    }

    /// A delete-expression: destroys the object (or every element) and frees its memory.
    pub fn delete_expression(&mut self, e: &Cursor) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let parts = e
            .delete_parts()
            .ok_or_else(|| FrontendError::unsupported(e.location(), "this form of delete"))?;
        let operand = match e.children().as_slice() {
            [only] => *only,
            _ => return Err(FrontendError::unsupported(e.location(), "delete operand")),
        };
        let element_ctype = operand.ty().canonical().pointee();
        let element = Ty::from_clang(element_ctype, &e.location())?;
        let dtor = destructor(&element_ctype, e)?;
        let Some(node) = parts.operator_delete else {
            return Err(FrontendError::unsupported(
                e.location(),
                "delete without a deallocation function",
            ));
        };
        let operator_delete = self.find_operator(node, &element_ctype, e)?;
        let pointer = self.rvalue(&operand)?.scalar();
        let null = self.null_pointer(loc)?.scalar();
        let given = self.pointers_differ(pointer, null, loc)?;
        let size = element.size() as i64;
        self.emit_guarded(
            given,
            &[],
            |this| {
                let i64t = Ty::LONG.value_mlir(this.ctx());
                let (memory, bytes) = match (&dtor, parts.is_array) {
                    (Some(dtor), true) => {
                        // The count is in the cookie before the first element.
                        let cookie = element.align().max(8) as i64;
                        let slot = this.byte_offset(pointer, -8, loc)?;
                        let n = this
                            .load(
                                &LValue::Mem {
                                    ptr: slot,
                                    ty: Ty::LONG,
                                    volatile: false,
                                },
                                loc,
                            )?
                            .scalar();
                        this.destroy_elements(dtor, pointer, &element, n, e)?;
                        let memory = this.byte_offset(pointer, -cookie, loc)?;
                        let bytes = this.array_bytes(n, element.size(), cookie, loc)?;
                        (memory, bytes)
                    }
                    // A virtual destructor: the dynamic class's.
                    (Some(dtor), false) if dtor.is_virtual_method() => {
                        // The whole object is freed, also through a pointer to a base that is
                        // not at its start.
                        let start = this.object_start(pointer, loc)?;
                        this.virtual_destroy(dtor, pointer, loc)?;
                        (start, this.b.const_int(i64t, size, loc)?)
                    }
                    (Some(dtor), false) => {
                        this.call_function(dtor, Some(pointer), &[], e)?;
                        this.destroy_virtual_bases(pointer, element_ctype, e)?;
                        (pointer, this.b.const_int(i64t, size, loc)?)
                    }
                    // Without a cookie the array's size is not known; the deallocation
                    // functions clang chooses for such arrays do not take it.
                    (None, _) => (pointer, this.b.const_int(i64t, size, loc)?),
                };
                this.call_deallocation(&operator_delete, memory, bytes, element.align(), e)
            },
            loc,
        )?;
        Ok(Val::Void)
    }

    /// `count * element + cookie` bytes, or a size no allocation satisfies when that overflows.
    fn array_bytes(
        &mut self,
        count: Value<'c>,
        element: u64,
        cookie: i64,
        loc: Location<'c>,
    ) -> Result<Value<'c>> {
        let i64t = Ty::LONG.value_mlir(self.ctx());
        let limit = (i64::MAX as u64 - cookie as u64) / element.max(1);
        let limit = self.b.const_int(i64t, limit as i64, loc)?;
        // Unsigned: a negative count is a huge one.
        let too_many = self.b.cmpi(CmpiPredicate::Ugt, count, limit, loc)?;
        let size = self.b.const_int(i64t, element as i64, loc)?;
        let product = self.b.insert_value(arith::muli(count, size, loc))?;
        let extra = self.b.const_int(i64t, cookie, loc)?;
        let total = self.b.insert_value(arith::addi(product, extra, loc))?;
        let impossible = self.b.const_int(i64t, IMPOSSIBLE_SIZE, loc)?;
        self.b
            .insert_value(arith::select(too_many, impossible, total, loc))
    }

    /// Whether two pointers differ.
    fn pointers_differ(&self, a: Value<'c>, b: Value<'c>, loc: Location<'c>) -> Result<Value<'c>> {
        let a = self.ptr_to_int(a, loc)?;
        let b = self.ptr_to_int(b, loc)?;
        self.b.cmpi(CmpiPredicate::Ne, a, b, loc)
    }

    /// Initializes `count` elements of type `element` at `first` from a new-expression's
    /// initializer: a constructor call for each, or a braced list (the rest zeroed).
    fn initialize_array(
        &mut self,
        first: Value<'c>,
        element: &Ty,
        count: Value<'c>,
        init: &Cursor,
    ) -> Result<()> {
        let loc = self.loc(init);
        if let Some(call) = constructor_call(init) {
            let ctor = call
                .referenced()
                .ok_or_else(|| internal(loc, "constructor"))?;
            let args = call.arguments();
            let record = element.clone();
            return self.for_each_element(first, element, count, false, init, |this, at| {
                this.construct(&ctor, at, &record, &args, &call)
            });
        }
        let items = match list_items(init) {
            Some(items) => items,
            None => {
                return Err(FrontendError::unsupported(
                    init.location(),
                    "this initializer of an array new",
                ))
            }
        };
        for (i, item) in items.iter().enumerate() {
            let at = self.byte_offset(first, i as i64 * element.size() as i64, loc)?;
            self.initialize(at, element, item)?;
        }
        // Elements beyond the list are value-initialized: zero for scalars.
        if !zero_is_value_initialization(element) {
            return Err(FrontendError::unsupported(
                init.location(),
                "array new with fewer initializers than elements of a class with a constructor",
            ));
        }
        let i64t = Ty::LONG.value_mlir(self.ctx());
        let listed = self.b.const_int(i64t, items.len() as i64, loc)?;
        let rest_start =
            self.byte_offset(first, items.len() as i64 * element.size() as i64, loc)?;
        let rest = self.b.insert_value(arith::subi(count, listed, loc))?;
        let element_ty = element.clone();
        self.for_each_element(rest_start, element, rest, false, init, |this, at| {
            this.zero_fill(at, &element_ty, loc)
        })
    }

    /// Runs `body` on the address of each of `count` elements from `first` (last first when
    /// `backwards`); a negative count runs it on none.
    pub(super) fn for_each_element(
        &mut self,
        first: Value<'c>,
        element: &Ty,
        count: Value<'c>,
        backwards: bool,
        site: &Cursor,
        mut body: impl FnMut(&mut Self, Value<'c>) -> Result<()>,
    ) -> Result<()> {
        let loc = self.loc(site);
        let i64t = Ty::LONG.value_mlir(self.ctx());
        let one = self.b.const_int(i64t, 1, loc)?;
        // (for_each_index compares signed: a negative count is no elements.)
        self.for_each_index(count, loc, |this, i| {
            let position = if backwards {
                let last = this.b.insert_value(arith::subi(count, one, loc))?;
                this.b.insert_value(arith::subi(last, i, loc))?
            } else {
                i
            };
            let at = this.gep(first, element, &[GepIndex::Dynamic(position)], loc)?;
            body(this, at)
        })
    }

    /// Runs `dtor` on `count` elements from `first`, last first (as C++ destroys arrays).
    fn destroy_elements(
        &mut self,
        dtor: &Cursor,
        first: Value<'c>,
        element: &Ty,
        count: Value<'c>,
        site: &Cursor,
    ) -> Result<()> {
        let dtor = *dtor;
        // Each element is a complete object: its virtual bases are destroyed after it.
        let class = dtor
            .semantic_parent()
            .map(|c| c.ty().canonical())
            .filter(|c| has_virtual_bases(*c));
        self.for_each_element(first, element, count, true, site, |this, at| {
            this.call_function(&dtor, Some(at), &[], site)?;
            match class {
                Some(class) => this.destroy_virtual_bases(at, class, site),
                None => Ok(()),
            }
        })
    }

    /// The allocation function clang chose for a new-expression.
    fn allocation_function(
        &mut self,
        node: Option<DeclNode>,
        element: &CType,
        e: &Cursor,
    ) -> Result<Cursor> {
        let node = node.ok_or_else(|| {
            FrontendError::unsupported(e.location(), "new without an allocation function")
        })?;
        self.find_operator(node, element, e)
    }

    /// The operator new or delete declared by `node`: a global one (hipmlir's device header
    /// declares them) or a member of the class allocated.
    fn find_operator(&mut self, node: DeclNode, element: &CType, e: &Cursor) -> Result<Cursor> {
        let found = e
            .file_scope_function(node)
            .or_else(|| {
                element
                    .canonical()
                    .declaration()
                    .children()
                    .into_iter()
                    .find(|c| c.is_declaration_node(node))
            })
            .ok_or_else(|| {
                FrontendError::unsupported(
                    e.location(),
                    "an allocation or deallocation function that is not declared where hipmlir \
                     looks (at file scope or in the class)",
                )
            })?;
        Ok(found.definition().unwrap_or(found))
    }

    /// Calls an allocation function with `bytes` and the placement arguments.
    fn call_allocation(
        &mut self,
        function: &Cursor,
        bytes: Value<'c>,
        alignment: Option<u64>,
        placement: &[Cursor],
        e: &Cursor,
    ) -> Result<Value<'c>> {
        let sig = self.module.declare_device_function(function, e)?;
        let params = function.arguments();
        let leading = 1 + usize::from(alignment.is_some());
        if params.len() != placement.len() + leading || sig.params.len() != params.len() {
            return Err(FrontendError::unsupported(
                e.location(),
                "this allocation function's parameters",
            ));
        }
        let mut operands = vec![bytes];
        if let Some(alignment) = alignment {
            let ty = sig.params[1].value_mlir(self.ctx());
            operands.push(self.b.const_int(ty, alignment as i64, self.loc(e))?);
        }
        let rest = params[leading..].iter().zip(&sig.params[leading..]);
        for (arg, (param, ty)) in placement.iter().zip(rest) {
            operands.push(if param.ty().is_reference() {
                self.object_address(arg)?
            } else {
                self.rvalue_as(arg, ty)?.scalar()
            });
        }
        let result = self.call_symbol(&sig, &operands, e)?;
        match result {
            Val::Scalar(v) => Ok(v),
            Val::Void => Err(internal(self.loc(e), "operator new returned nothing")),
        }
    }

    /// Calls a deallocation function with the pointer, and the size and the alignment
    /// (`std::align_val_t`, an enumeration) when it takes them.
    fn call_deallocation(
        &mut self,
        function: &Cursor,
        pointer: Value<'c>,
        bytes: Value<'c>,
        alignment: u64,
        e: &Cursor,
    ) -> Result<()> {
        let sig = self.module.declare_device_function(function, e)?;
        let params = function.arguments();
        let unsupported =
            || FrontendError::unsupported(e.location(), "this deallocation function's parameters");
        if !matches!(sig.params.first(), Some(Ty::Pointer { .. }))
            || params.len() != sig.params.len()
            || params.len() > 3
        {
            return Err(unsupported());
        }
        let mut operands = vec![pointer];
        for (param, ty) in params.iter().zip(&sig.params).skip(1) {
            let Ty::Int { .. } = ty else {
                return Err(unsupported());
            };
            operands.push(match param.ty().canonical().kind() {
                clang_sys::CXType_Enum => {
                    let ty = ty.value_mlir(self.ctx());
                    self.b.const_int(ty, alignment as i64, self.loc(e))?
                }
                _ => bytes,
            });
        }
        self.call_symbol(&sig, &operands, e).map(|_| ())
    }

    /// `func.call` of a device function with operands already converted.
    pub(super) fn call_symbol(
        &mut self,
        sig: &FunctionSig,
        operands: &[Value<'c>],
        e: &Cursor,
    ) -> Result<Val<'c>> {
        let loc = self.loc(e);
        let results: Vec<_> = match sig.result {
            Ty::Void => vec![],
            ref t => vec![t.value_mlir(self.ctx())],
        };
        let callee = melior::ir::attribute::FlatSymbolRefAttribute::new(self.ctx(), &sig.symbol);
        let out = self.b.insert(melior::dialect::func::call(
            self.ctx(),
            callee,
            operands,
            &results,
            loc,
        ));
        Ok(out.first().map_or(Val::Void, |v| Val::Scalar(*v)))
    }
}

/// The destructor `delete` runs on an object of type `ty` (or on each element of an array of
/// them): `None` when destroying one does nothing.
pub fn destructor(ty: &CType, e: &Cursor) -> Result<Option<Cursor>> {
    let ty = ty.canonical();
    let record = match ty.kind() {
        clang_sys::CXType_Record => ty,
        clang_sys::CXType_ConstantArray | clang_sys::CXType_IncompleteArray => {
            return match destructor(&ty.element(), e)? {
                None => Ok(None),
                Some(_) => Err(FrontendError::unsupported(
                    e.location(),
                    "new or delete of arrays of arrays of objects with destructors",
                )),
            }
        }
        _ => return Ok(None),
    };
    let Some(info) = record.destructor() else {
        return Ok(None);
    };
    // The destructor destroys the members and bases after its body (lifetime.rs); a complete
    // object's virtual bases are destroyed after it (`destroy_elements`).
    Ok(info.destructor)
}

/// The items of a braced list, looking through the wrappers libclang shows around it.
fn list_items(init: &Cursor) -> Option<Vec<Cursor>> {
    let list = init.without_implicit();
    (list.kind() == clang_sys::CXCursor_InitListExpr).then(|| list.children())
}

/// Whether zeroing an element of type `ty` is its value-initialization (a class may have a
/// constructor or default member initializers to run).
fn zero_is_value_initialization(ty: &Ty) -> bool {
    !matches!(ty, Ty::Record(_) | Ty::Array { .. })
}
