//! Where an index network's time goes, layer by layer, as OpenCV's DNN runs it on one thread:
//! `layer_times ONNX PLANES W H BATCH` (a file as shipped reads `W x H` patches transposed, so
//! the corner networks are `2 28 64`, the loose ones `2 32 48`). The patches are a fixed
//! pattern: a layer's time does not depend on what it reads.
use opencv::{core, dnn, prelude::*};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    core::set_num_threads(1)?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, planes, w, h, batch] = args.as_slice() else {
        return Err("usage: layer_times ONNX PLANES W H BATCH".into());
    };
    let shape = [batch.parse()?, planes.parse()?, w.parse()?, h.parse()?];
    let mut net = dnn::read_net_from_onnx(path)?;
    net.set_preferable_backend(dnn::DNN_BACKEND_OPENCV)?;
    net.set_preferable_target(dnn::DNN_TARGET_CPU)?;
    let mut blob = Mat::new_nd_with_default(&shape, core::CV_32F, core::Scalar::all(0.0))?;
    for (i, v) in blob.data_typed_mut::<f32>()?.iter_mut().enumerate() {
        *v = ((i * 37) % 251) as f32 / 255.0;
    }
    let outputs = net.get_unconnected_out_layers_names()?;
    let reps = 200;
    let mut ticks: Vec<f64> = Vec::new();
    let start = std::time::Instant::now();
    for _ in 0..reps {
        net.set_input(&blob, "", 1.0, core::Scalar::default())?;
        let mut outs = core::Vector::<Mat>::new();
        net.forward(&mut outs, &outputs)?;
        let mut layers = core::Vector::<f64>::new();
        net.get_perf_profile(&mut layers)?;
        ticks.resize(layers.len(), 0.0);
        for (sum, t) in ticks.iter_mut().zip(layers.iter()) {
            *sum += t;
        }
    }
    let ms_per_tick = 1000.0 / core::get_tick_frequency()? / f64::from(reps);
    for (name, t) in net.get_layer_names()?.iter().zip(&ticks) {
        // Layers fused into the one before them (batch norms, ReLUs) take no time of their own.
        if *t > 0.0 {
            println!("{name:40} {:.3} ms", t * ms_per_tick);
        }
    }
    let total = start.elapsed().as_secs_f64() * 1000.0 / f64::from(reps);
    println!("all layers, batch {batch}: {total:.3} ms");
    Ok(())
}
