//! Per-device state of the layers above the device (pipeline cache, report and staging
//! pools): kept on the device it belongs to, created on first use, destroyed with the device.
//!
//! The device layer does not know these types: a layer declares its state as a
//! [`DeviceState`] and reaches it with [`Device::state`].

use std::any::{Any, TypeId};
use std::sync::{Arc, Mutex};

use super::Device;
use crate::sync::lock;

/// State an upper layer keeps per device.
pub(crate) trait DeviceState: Default + Send + Sync + 'static {
    /// Destroys the Vulkan objects the state holds. Called once, when the device goes: after
    /// all its work finished, before its allocator and the device itself are destroyed.
    ///
    /// # Safety
    /// No device work may use the objects; the state is not used afterwards.
    unsafe fn destroy(&self, _device: &Device) {}
}

/// A [`DeviceState`] of some type.
trait AnyState: Send + Sync {
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync>;
    /// # Safety
    /// As for [`DeviceState::destroy`].
    unsafe fn destroy(&self, device: &Device);
}

impl<T: DeviceState> AnyState for T {
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }

    unsafe fn destroy(&self, device: &Device) {
        // SAFETY: per the function's contract.
        unsafe { DeviceState::destroy(self, device) }
    }
}

/// The states of one device, one per type.
#[derive(Default)]
pub(super) struct States(Mutex<Vec<(TypeId, Arc<dyn AnyState>)>>);

impl States {
    /// Destroys every state (see [`DeviceState::destroy`]).
    ///
    /// # Safety
    /// As for [`DeviceState::destroy`].
    pub(super) unsafe fn destroy_all(&self, device: &Device) {
        let states: Vec<_> = lock(&self.0).drain(..).collect();
        for (_, state) in states {
            // SAFETY: per the function's contract.
            unsafe { state.destroy(device) };
        }
    }
}

impl Device {
    /// This device's state of type `T`, created on first use.
    pub(crate) fn state<T: DeviceState>(&self) -> Arc<T> {
        let id = TypeId::of::<T>();
        let state = {
            let mut states = lock(&self.states.0);
            match states.iter().find(|(t, _)| *t == id) {
                Some((_, s)) => s.clone(),
                None => {
                    let s: Arc<dyn AnyState> = Arc::new(T::default());
                    states.push((id, s.clone()));
                    s
                }
            }
        };
        match state.into_any().downcast::<T>() {
            Ok(s) => s,
            Err(_) => unreachable!("a state is stored under its own type's id"),
        }
    }
}
