//! Image work the stages share: outlines as four points (`quad`), warps, masks and components
//! (`pixels`), how soft the frame is (`blur`) and the colour of the light (`light`).

pub mod blur;
pub mod light;
pub mod pixels;
pub mod quad;
