//! The forwarding implementations of the plug-in traits for `&T`,
//! `Box<T>` and `Arc<T>`, written once.

/// Implements `$trait` for `&T`, `Box<T>` and `Arc<T>` by forwarding each
/// listed method to `T`. Methods are listed as `fn name(args) -> Ret;`
/// after `sync`, and as `async fn …;` after `async` (those impls get
/// `#[async_trait]`).
macro_rules! forward_impls {
    (
        $trait:ident
        $(sync { $(fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)* })?
        $(async { $(async fn $aname:ident(&self $(, $aarg:ident: $aty:ty)*) -> $aret:ty;)* })?
    ) => {
        $crate::forward::forward_impls!(@one $trait, [&T] $(sync { $(fn $name(&self $(, $arg: $ty)*) -> $ret;)* })? $(async { $(async fn $aname(&self $(, $aarg: $aty)*) -> $aret;)* })?);
        $crate::forward::forward_impls!(@one $trait, [Box<T>] $(sync { $(fn $name(&self $(, $arg: $ty)*) -> $ret;)* })? $(async { $(async fn $aname(&self $(, $aarg: $aty)*) -> $aret;)* })?);
        $crate::forward::forward_impls!(@one $trait, [std::sync::Arc<T>] $(sync { $(fn $name(&self $(, $arg: $ty)*) -> $ret;)* })? $(async { $(async fn $aname(&self $(, $aarg: $aty)*) -> $aret;)* })?);
    };
    (@one $trait:ident, [$($ptr:tt)+]
        sync { $(fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)* }
    ) => {
        impl<T: $trait + ?Sized> $trait for $($ptr)+ {
            $(fn $name(&self $(, $arg: $ty)*) -> $ret {
                (**self).$name($($arg),*)
            })*
        }
    };
    (@one $trait:ident, [$($ptr:tt)+]
        $(sync { $(fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)* })?
        async { $(async fn $aname:ident(&self $(, $aarg:ident: $aty:ty)*) -> $aret:ty;)* }
    ) => {
        #[async_trait::async_trait]
        impl<T: $trait + ?Sized> $trait for $($ptr)+ {
            $($(fn $name(&self $(, $arg: $ty)*) -> $ret {
                (**self).$name($($arg),*)
            })*)?
            $(async fn $aname(&self $(, $aarg: $aty)*) -> $aret {
                (**self).$aname($($aarg),*).await
            })*
        }
    };
}

pub(crate) use forward_impls;
