//! The process-wide Vulkan instance and the validation-message counter.

use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ash::vk;

use crate::Error;

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

static VALIDATION_MESSAGES: AtomicUsize = AtomicUsize::new(0);
static INSTANCE: Mutex<Option<Arc<InstanceShared>>> = Mutex::new(None);

/// The number of validation messages of severity warning or error reported so far.
///
/// Validation is enabled by setting the environment variable `AMP_VALIDATION=1` before the
/// first device is used (it needs the Khronos validation layer, package
/// `vulkan-validationlayers` on Debian and Ubuntu). Each such message is also printed to
/// stderr. Without validation this stays 0.
pub fn validation_message_count() -> usize {
    VALIDATION_MESSAGES.load(Ordering::SeqCst)
}

/// Whether the validation layer is active in this process (`AMP_VALIDATION=1` and the layer
/// was found). Creates the Vulkan instance if needed.
pub fn validation_enabled() -> bool {
    instance().map(|i| i.validation).unwrap_or(false)
}

unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    let counted = severity.intersects(
        vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
            | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
    );
    // SAFETY: the layer passes a valid callback-data struct for the duration of the call.
    let id = unsafe { data.as_ref().and_then(|d| d.message_id_name_as_c_str()) };
    // Enabling the debugging extensions is what validation itself asks for.
    let about_validation = id.is_some_and(|id| {
        id.to_bytes()
            .starts_with(b"UNASSIGNED-BestPractices-vkCreateInstance-specialuse-extension")
    });
    if counted && !about_validation {
        VALIDATION_MESSAGES.fetch_add(1, Ordering::SeqCst);
        // SAFETY: as above.
        let message = unsafe { data.as_ref().and_then(|d| d.message_as_c_str()) }
            .map(|m| m.to_string_lossy().into_owned())
            .unwrap_or_default();
        eprintln!("[amp validation {severity:?} {types:?}] {message}");
    }
    vk::FALSE
}

/// The Vulkan instance, shared by every device.
pub(crate) struct InstanceShared {
    /// Keeps the Vulkan loader loaded.
    _entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    debug: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    pub(crate) validation: bool,
}

impl Drop for InstanceShared {
    fn drop(&mut self) {
        // SAFETY: every child object holds an Arc to this instance, so none is left.
        unsafe {
            if let Some((loader, messenger)) = self.debug.take() {
                loader.destroy_debug_utils_messenger(messenger, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

/// The process-wide instance, created on first use.
pub(crate) fn instance() -> Result<Arc<InstanceShared>, Error> {
    let mut slot = INSTANCE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(inst) = slot.as_ref() {
        return Ok(inst.clone());
    }
    let inst = Arc::new(create_instance()?);
    *slot = Some(inst.clone());
    Ok(inst)
}

/// Environment variable naming the Vulkan loader library to use instead of the system's
/// (`libvulkan.so.1`, `vulkan-1.dll`, ...).
const LOADER_ENV: &str = "AMP_VULKAN_LIBRARY";

/// Loads the Vulkan loader: the library `AMP_VULKAN_LIBRARY` names, else the system's.
fn load_entry() -> Result<ash::Entry, Error> {
    let result = match crate::config::text(LOADER_ENV)? {
        // SAFETY: loading a Vulkan loader the user named; it is kept alive by the entry.
        Some(path) => unsafe { ash::Entry::load_from(&path) }.map_err(|e| format!("{}: {e}", path)),
        // SAFETY: loading the system Vulkan loader; it is kept alive by the entry.
        None => unsafe { ash::Entry::load() }.map_err(|e| e.to_string()),
    };
    result.map_err(Error::NoVulkanLoader)
}

fn create_instance() -> Result<InstanceShared, Error> {
    crate::config::check_all()?;
    let entry = load_entry()?;

    let want_validation = crate::config::flag("AMP_VALIDATION")?;
    let mut layers: Vec<*const std::ffi::c_char> = Vec::new();
    let mut extensions: Vec<*const std::ffi::c_char> = Vec::new();
    let mut validation = false;
    let mut validation_features = false;
    if want_validation {
        // SAFETY: plain enumeration calls.
        let available = unsafe { entry.enumerate_instance_layer_properties() }.unwrap_or_default();
        let has_layer = available
            .iter()
            .any(|l| l.layer_name_as_c_str().ok() == Some(VALIDATION_LAYER));
        if has_layer {
            let mut ext_names: Vec<Vec<u8>> = Vec::new();
            // SAFETY: plain enumeration calls.
            for props in [
                unsafe { entry.enumerate_instance_extension_properties(None) },
                unsafe { entry.enumerate_instance_extension_properties(Some(VALIDATION_LAYER)) },
            ]
            .into_iter()
            .flatten()
            .flatten()
            {
                if let Ok(name) = props.extension_name_as_c_str() {
                    ext_names.push(name.to_bytes().to_vec());
                }
            }
            let has = |n: &CStr| ext_names.iter().any(|e| e.as_slice() == n.to_bytes());
            if has(ash::ext::debug_utils::NAME) {
                validation = true;
                layers.push(VALIDATION_LAYER.as_ptr());
                extensions.push(ash::ext::debug_utils::NAME.as_ptr());
                if has(ash::ext::validation_features::NAME) {
                    validation_features = true;
                    extensions.push(ash::ext::validation_features::NAME.as_ptr());
                }
            } else {
                eprintln!("amp: AMP_VALIDATION=1 but VK_EXT_debug_utils is unavailable; running without validation");
            }
        } else {
            eprintln!("amp: AMP_VALIDATION=1 but the Vulkan validation layer is not installed (install the `vulkan-validationlayers` package); running without validation");
        }
    }

    let app = vk::ApplicationInfo::default()
        .application_name(c"amp-rs")
        .engine_name(c"amp-runtime")
        .api_version(vk::API_VERSION_1_1);
    // The simulated discrete GPU also runs the layer's best-practices checks, which hold the
    // runtime to what discrete GPUs need (see `discrete.rs`).
    let enabled_features: &[vk::ValidationFeatureEnableEXT] =
        if super::discrete::simulate_discrete() {
            &[
                vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION,
                vk::ValidationFeatureEnableEXT::BEST_PRACTICES,
            ]
        } else {
            &[vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION]
        };
    let mut features =
        vk::ValidationFeaturesEXT::default().enabled_validation_features(enabled_features);
    let mut messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(debug_callback));
    let mut create = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_layer_names(&layers)
        .enabled_extension_names(&extensions);
    if validation {
        // Also catches messages from instance creation and destruction.
        create = create.push_next(&mut messenger_info);
        if validation_features {
            create = create.push_next(&mut features);
        }
    }
    // SAFETY: every pointer in `create` outlives the call.
    let instance =
        unsafe { entry.create_instance(&create, None) }.map_err(|result| match result {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => Error::NoDevice,
            r => Error::vk("vkCreateInstance")(r),
        })?;

    let debug = if validation {
        let loader = ash::ext::debug_utils::Instance::new(&entry, &instance);
        // SAFETY: `messenger_info` is fully initialised; its p_next chain is not read here.
        let info = vk::DebugUtilsMessengerCreateInfoEXT {
            p_next: std::ptr::null(),
            ..messenger_info
        };
        match unsafe { loader.create_debug_utils_messenger(&info, None) } {
            Ok(m) => Some((loader, m)),
            Err(r) => {
                // SAFETY: nothing was created from the instance yet.
                unsafe { instance.destroy_instance(None) };
                return Err(Error::vk("vkCreateDebugUtilsMessengerEXT")(r));
            }
        }
    } else {
        None
    };

    Ok(InstanceShared {
        _entry: entry,
        instance,
        debug,
        validation,
    })
}
