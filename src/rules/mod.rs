//! Game rules: each game's referee, as pure state machines fed by inputs (no camera, no window).

pub mod omphala;
