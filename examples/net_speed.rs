//! Times the index networks on batches of patches, one OpenCV thread (`net_speed [ONNX W H]`; an
//! ONNX file as shipped, reading `W x H` patches transposed: `models/train/transpose_net.py`).
use std::time::Instant;

use card_referee::vision::cards::readers::index_net::IndexNet;
use card_referee::vision::cards::readers::patch::{CORNER_H, CORNER_W, INDEX_H, INDEX_W, PLANES, Patch};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    opencv::core::set_num_threads(1)?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let nets: Vec<(String, IndexNet, i32, i32)> = if let [path, w, h] = args.as_slice() {
        let (w, h) = (w.parse()?, h.parse()?);
        vec![(path.clone(), IndexNet::from_onnx(&std::fs::read(path)?, w, h)?, w, h)]
    } else {
        vec![
            ("corner".into(), IndexNet::corner()?, CORNER_W, CORNER_H),
            ("loose".into(), IndexNet::loose()?, INDEX_W, INDEX_H),
        ]
    };
    for (name, net, w, h) in nets {
        for n in [1usize, 40, 400] {
            let patch = Patch { w, h, bytes: (0..PLANES * (w * h) as usize).map(|i| (i * 37 % 251) as u8).collect() };
            let patches: Vec<&Patch> = std::iter::repeat_n(&patch, n).collect();
            net.read(&patches)?;
            let start = Instant::now();
            let reps = 2000 / n + 3;
            for _ in 0..reps {
                net.read(&patches)?;
            }
            let ms = start.elapsed().as_secs_f64() * 1000.0 / reps as f64;
            println!("{name}: batch {n}: {ms:.3} ms ({:.4} ms per patch)", ms / n as f64);
        }
    }
    Ok(())
}
