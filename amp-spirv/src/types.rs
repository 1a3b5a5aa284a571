//! Types of kernel values, as the front end sees them.

use std::fmt;
use std::sync::Arc;

/// A scalar type of the kernel language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// `bool`.
    Bool,
    /// `i32`.
    I32,
    /// `u32`.
    U32,
    /// `i8`: a 32-bit signed integer on the device, sign-extended from its low 8 bits after
    /// every operation, and 8 bits in a buffer.
    I8,
    /// `u8`: a 32-bit unsigned integer on the device, masked to its low 8 bits after every
    /// operation, and 8 bits in a buffer.
    U8,
    /// `i16`: as [`Scalar::I8`], 16 bits.
    I16,
    /// `u16`: as [`Scalar::U8`], 16 bits.
    U16,
    /// `f32`.
    F32,
    /// `f64` (needs the device's `shaderFloat64`).
    F64,
    /// `usize`: index components and extents, 32-bit unsigned on the device.
    Usize,
    /// `Norm` (C++ AMP's `norm`): an `f32` held in `[-1, 1]`, clamped after every conversion
    /// and arithmetic operation. Not a float type: no math functions or casts.
    Norm,
    /// `Unorm` (C++ AMP's `unorm`): an `f32` held in `[0, 1]`, as [`Scalar::Norm`].
    Unorm,
}

impl Scalar {
    /// Parses a Rust type name.
    pub fn from_name(name: &str) -> Option<Scalar> {
        Some(match name {
            "bool" => Scalar::Bool,
            "i32" => Scalar::I32,
            "u32" => Scalar::U32,
            "i8" => Scalar::I8,
            "u8" => Scalar::U8,
            "i16" => Scalar::I16,
            "u16" => Scalar::U16,
            "f32" => Scalar::F32,
            "f64" => Scalar::F64,
            "usize" => Scalar::Usize,
            "Norm" | "norm" => Scalar::Norm,
            "Unorm" | "unorm" => Scalar::Unorm,
            _ => return None,
        })
    }

    /// The Rust spelling.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I32 => "i32",
            Scalar::U32 => "u32",
            Scalar::I8 => "i8",
            Scalar::U8 => "u8",
            Scalar::I16 => "i16",
            Scalar::U16 => "u16",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::Usize => "usize",
            Scalar::Norm => "Norm",
            Scalar::Unorm => "Unorm",
        }
    }

    /// Whether the type is `Norm` or `Unorm`: an `f32` on the device, clamped into its range.
    pub fn is_normalized(self) -> bool {
        matches!(self, Scalar::Norm | Scalar::Unorm)
    }

    /// The smallest value of a normalized type (`-1` or `0`); `None` for other types.
    pub fn normalized_min(self) -> Option<f32> {
        match self {
            Scalar::Norm => Some(-1.0),
            Scalar::Unorm => Some(0.0),
            _ => None,
        }
    }

    /// The type SPIR-V (and a register) holds a value of this type in: `f32` for the
    /// normalized types, `i32` / `u32` for the small integers, the type itself otherwise.
    pub fn device(self) -> Scalar {
        match self {
            Scalar::Norm | Scalar::Unorm => Scalar::F32,
            Scalar::I8 | Scalar::I16 => Scalar::I32,
            Scalar::U8 | Scalar::U16 => Scalar::U32,
            other => other,
        }
    }

    /// The type the native back end computes a value of this type in: `f32` for the
    /// normalized types, the type itself otherwise (Rust's own small integers wrap at their
    /// widths).
    pub fn native(self) -> Scalar {
        if self.is_normalized() {
            Scalar::F32
        } else {
            self
        }
    }

    /// Whether the type is an integer type.
    pub fn is_int(self) -> bool {
        matches!(
            self,
            Scalar::I32
                | Scalar::U32
                | Scalar::Usize
                | Scalar::I8
                | Scalar::U8
                | Scalar::I16
                | Scalar::U16
        )
    }

    /// Whether the type is a signed integer type.
    pub fn is_signed_int(self) -> bool {
        matches!(self, Scalar::I32 | Scalar::I8 | Scalar::I16)
    }

    /// Whether the type is one of the small integers (`i8`, `u8`, `i16`, `u16`): held in 32
    /// bits and narrowed back to its width after every operation ([`Scalar::narrow_bits`]).
    pub fn is_small_int(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::U8 | Scalar::I16 | Scalar::U16)
    }

    /// The scalar a buffer element of this type is stored as: `u8` for `bool` (one byte, 0 or
    /// 1, as the host's `bool`), the type itself otherwise.
    pub fn stored(self) -> Scalar {
        if self == Scalar::Bool {
            Scalar::U8
        } else {
            self
        }
    }

    /// Whether a buffer element of this type is stored narrower than a 32-bit word: the small
    /// integers and `bool`.
    pub fn is_narrow_elem(self) -> bool {
        self.stored().is_small_int()
    }

    /// The width a small integer is narrowed to (8 or 16); `None` for every other type.
    pub fn narrow_bits(self) -> Option<u32> {
        self.is_small_int().then(|| self.bits())
    }

    /// The smallest and largest value of an integer type, as `i64`s (`usize` is 32 bits).
    pub fn int_range(self) -> Option<(i64, i64)> {
        Some(match self {
            Scalar::I8 => (i8::MIN.into(), i8::MAX.into()),
            Scalar::U8 => (0, u8::MAX.into()),
            Scalar::I16 => (i16::MIN.into(), i16::MAX.into()),
            Scalar::U16 => (0, u16::MAX.into()),
            Scalar::I32 => (i32::MIN.into(), i32::MAX.into()),
            Scalar::U32 | Scalar::Usize => (0, u32::MAX.into()),
            _ => return None,
        })
    }

    /// Whether the type is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }

    /// Width in bits on the device.
    pub fn bits(self) -> u32 {
        match self {
            Scalar::F64 => 64,
            Scalar::Bool => 1,
            Scalar::I8 | Scalar::U8 => 8,
            Scalar::I16 | Scalar::U16 => 16,
            _ => 32,
        }
    }

    /// How the runtime sees a value of this type ([`amp_abi::ScalarType`]): `usize` travels
    /// as a `u32`, `bool` as a `u32` 0 or 1.
    pub fn abi(self) -> amp_abi::ScalarType {
        match self {
            Scalar::Bool => amp_abi::ScalarType::Bool,
            Scalar::I32 => amp_abi::ScalarType::I32,
            Scalar::U32 | Scalar::Usize => amp_abi::ScalarType::U32,
            Scalar::I8 => amp_abi::ScalarType::I8,
            Scalar::U8 => amp_abi::ScalarType::U8,
            Scalar::I16 => amp_abi::ScalarType::I16,
            Scalar::U16 => amp_abi::ScalarType::U16,
            Scalar::F32 => amp_abi::ScalarType::F32,
            Scalar::F64 => amp_abi::ScalarType::F64,
            Scalar::Norm => amp_abi::ScalarType::Norm,
            Scalar::Unorm => amp_abi::ScalarType::Unorm,
        }
    }
}

/// The length of an array type: a literal, or a constant from outside the kernel (a `const`
/// item or a const-generic parameter), which reaches the device as a specialization constant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Len {
    /// A literal length.
    Lit(u32),
    /// Outer constant number `index` of the kernel, named `name`.
    Const(u32, String),
}

impl Len {
    /// The length, when it is a literal.
    pub fn literal(&self) -> Option<u32> {
        match self {
            Len::Lit(n) => Some(*n),
            Len::Const(..) => None,
        }
    }
}

impl fmt::Display for Len {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Len::Lit(n) => write!(f, "{n}"),
            Len::Const(_, name) => f.write_str(name),
        }
    }
}

/// The type of a kernel value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A scalar.
    Scalar(Scalar),
    /// A fixed-size array `[T; N]`; also what `Index<N>` and `Extent<N>` are inside a kernel
    /// (`[usize; N]`).
    Array(Box<Ty>, Len),
    /// `()`.
    Unit,
    /// The type of `break`, `continue` and `return`: fits anywhere.
    Never,
    /// An integer or float literal whose type inference has not settled yet.
    Var(u32),
    /// A short vector (`Float3`, `int_2`, ...): 2 to 4 components of one scalar type.
    Vector(Scalar, u32),
    /// A user struct, with its definition: a type says everything about itself, so nothing
    /// needs a table to lay it out or name it.
    Struct(Arc<StructDef>),
    /// A tuple of two or more values (`(u32, bool)`): a value of locals and expressions only,
    /// never in a buffer. Its components are read as elements with a literal index (`t.0`).
    Tuple(Vec<Ty>),
}

/// A `#[derive(DeviceStruct)]` struct as the device sees it: `#[repr(C)]`, with short vectors
/// packed (a [`StructTable`](crate::StructTable) lays them out).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructDef {
    /// Its name as written in its definition.
    pub name: String,
    /// Its fields in declaration order.
    pub fields: Vec<Field>,
    /// Size in bytes (a multiple of `align`).
    pub size: u32,
    /// Alignment in bytes.
    pub align: u32,
}

/// One field of a [`StructDef`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    /// Its name.
    pub name: String,
    /// Its type: a scalar (not `bool` or `usize`), a short vector or a struct.
    pub ty: Ty,
    /// Byte offset in the struct.
    pub offset: u32,
}

impl Ty {
    /// Shorthand for `Ty::Scalar(Scalar::Bool)`.
    pub const BOOL: Ty = Ty::Scalar(Scalar::Bool);
    /// Shorthand for `Ty::Scalar(Scalar::Usize)`.
    pub const USIZE: Ty = Ty::Scalar(Scalar::Usize);

    /// The scalar, if this is one.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Ty::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// The scalar of a scalar, or the component type of a short vector.
    pub fn component(&self) -> Option<Scalar> {
        match self {
            Ty::Scalar(s) | Ty::Vector(s, _) => Some(*s),
            _ => None,
        }
    }

    /// Bytes of one scalar, packed short vector or struct on the device (`bool` counts 4);
    /// `None` for other types.
    pub fn packed_bytes(&self) -> Option<u32> {
        let scalar_bytes = |s: Scalar| if s == Scalar::F64 { 8 } else { 4 };
        match self {
            Ty::Scalar(s) => Some(scalar_bytes(*s)),
            Ty::Vector(s, n) => Some(scalar_bytes(*s) * n),
            Ty::Struct(def) => Some(def.size),
            _ => None,
        }
    }

    /// Size and alignment in bytes of a value of this type in a buffer (scalars, packed
    /// vectors, structs).
    pub fn size_align(&self) -> (u32, u32) {
        match self {
            Ty::Struct(def) => (def.size, def.align),
            Ty::Vector(s, _) => (
                self.packed_bytes().expect("vector"),
                Ty::Scalar(*s).packed_bytes().expect("scalar"),
            ),
            other => {
                let n = other.packed_bytes().unwrap_or(4);
                (n, n)
            }
        }
    }

    /// `[elem; n]` with a literal length.
    pub fn array(elem: Ty, n: u32) -> Ty {
        Ty::Array(Box::new(elem), Len::Lit(n))
    }

    /// The type as SPIR-V holds it: the normalized scalars (in scalars, vectors and arrays)
    /// become `f32`; everything else is itself (a struct's fields are mapped one by one).
    pub fn device(&self) -> Ty {
        match self {
            Ty::Scalar(s) => Ty::Scalar(s.device()),
            Ty::Vector(s, n) => Ty::Vector(s.device(), *n),
            Ty::Array(e, n) => Ty::Array(Box::new(e.device()), n.clone()),
            Ty::Tuple(items) => Ty::Tuple(items.iter().map(Ty::device).collect()),
            other => other.clone(),
        }
    }

    /// Whether this is a normalized scalar or a vector of them (`Unorm`, `Norm4`).
    pub fn is_normalized(&self) -> bool {
        matches!(self, Ty::Scalar(s) | Ty::Vector(s, _) if s.is_normalized())
    }

    /// Whether values of this type take no storage (`()` and `!`).
    pub fn is_zero_sized(&self) -> bool {
        matches!(self, Ty::Unit | Ty::Never)
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Scalar(s) => f.write_str(s.name()),
            Ty::Array(elem, n) => write!(f, "[{elem}; {n}]"),
            Ty::Unit => f.write_str("()"),
            Ty::Never => f.write_str("!"),
            Ty::Var(_) => f.write_str("{number}"),
            Ty::Vector(s, n) => f.write_str(&crate::types::vector_name(*s, *n)),
            Ty::Struct(def) => f.write_str(&def.name),
            Ty::Tuple(items) => {
                let items: Vec<String> = items.iter().map(Ty::to_string).collect();
                write!(f, "({})", items.join(", "))
            }
        }
    }
}

/// The element type of a view or array parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Elem {
    /// `i32`, `u32`, `f32` or `f64`.
    Scalar(Scalar),
    /// A short vector of one of those, 2 to 4 components, packed as in C (a `Float3` is 12
    /// bytes).
    Vector(Scalar, u32),
    /// A user struct, with its definition.
    Struct(Arc<StructDef>),
}

impl Elem {
    /// The type of one element in the kernel.
    pub fn ty(&self) -> Ty {
        match self {
            Elem::Scalar(s) => Ty::Scalar(*s),
            Elem::Vector(s, n) => Ty::Vector(*s, *n),
            Elem::Struct(def) => Ty::Struct(def.clone()),
        }
    }

    /// How the runtime describes this element type ([`amp_abi::ElemType`]); `None` for a
    /// struct, which the runtime knows by its host type's `DeviceElement::ELEM`.
    pub fn abi(&self) -> Option<amp_abi::ElemType> {
        match self {
            Elem::Scalar(s) => Some(amp_abi::ElemType::Scalar(s.abi())),
            Elem::Vector(s, n) => Some(amp_abi::ElemType::Vector(s.abi(), *n)),
            Elem::Struct(_) => None,
        }
    }

    /// The Rust spelling (`f32`, `Float3`).
    pub fn name(&self) -> String {
        self.ty().to_string()
    }
}

/// The host type name of a short vector: `Float3`, `Int2`, `UInt4`, `Double2`.
pub fn vector_name(s: Scalar, n: u32) -> String {
    let base = match s {
        Scalar::I32 => "Int",
        Scalar::U32 | Scalar::Usize => "UInt",
        // No short vector of the small integers exists; the name is for messages only.
        Scalar::I8 | Scalar::U8 | Scalar::I16 | Scalar::U16 => {
            return format!("[{}; {n}]", s.name())
        }
        Scalar::F32 => "Float",
        Scalar::F64 => "Double",
        Scalar::Bool => "Bool",
        Scalar::Norm => "Norm",
        Scalar::Unorm => "Unorm",
    };
    format!("{base}{n}")
}

/// Parses a short vector type name: `Float3` or C++ AMP's `float_3` (also `Int2`/`int_2`,
/// `UInt4`/`uint_4`, `Double2`/`double_2`, `Norm2`/`norm_2`, `Unorm4`/`unorm_4`).
pub fn vector_from_name(name: &str) -> Option<(Scalar, u32)> {
    let (base, n) = match name.rsplit_once('_') {
        Some((base, n)) => (base, n),
        None => name.split_at(name.len().checked_sub(1)?),
    };
    let n: u32 = n.parse().ok().filter(|n| (2..=4).contains(n))?;
    let s = match base {
        "Int" | "int" => Scalar::I32,
        "UInt" | "uint" => Scalar::U32,
        "Float" | "float" => Scalar::F32,
        "Double" | "double" => Scalar::F64,
        "Norm" | "norm" => Scalar::Norm,
        "Unorm" | "unorm" => Scalar::Unorm,
        _ => return None,
    };
    Some((s, n))
}
