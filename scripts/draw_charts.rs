//! Draws docs/charts/<family>.svg from the CSV `scripts/scaling.py` measures: time against
//! size, one line per tool and input, on a logarithmic time axis; a point at the time limit
//! is a cross on the limit's line, so "did not finish" is never drawn as a time.
//!
//! usage: draw-charts CSV OUT-DIR [FAMILY=TITLE|AXIS ...]

use plotters::prelude::*;
use std::collections::BTreeMap;
use std::error::Error;

struct Point {
    size: f64,
    seconds: f64,
    at_limit: bool,
}

/// Each line's colour: nemos in blues, the peers in their own colours.
fn colour(line: &str) -> RGBColor {
    match line {
        "nemos (litmus)" => RGBColor(31, 90, 200),
        "nemos (c)" | "nemos (corpus)" => RGBColor(90, 170, 230),
        l if l.starts_with("herd7") => RGBColor(200, 60, 40),
        _ => RGBColor(40, 150, 60),
    }
}

type Families = BTreeMap<String, BTreeMap<String, Vec<Point>>>;

fn read(csv_path: &str) -> Result<Families, Box<dyn Error>> {
    let text = std::fs::read_to_string(csv_path)?;
    let mut families = Families::new();
    for (number, row) in text.lines().enumerate().skip(1) {
        let fields: Vec<&str> = row.split(',').collect();
        let [family, size, line, seconds, status, ..] = fields[..] else {
            return Err(format!("{csv_path}:{}: expected 6 fields", number + 1).into());
        };
        if status == "skipped" {
            continue;
        }
        families
            .entry(family.to_string())
            .or_default()
            .entry(line.to_string())
            .or_default()
            .push(Point {
                size: size.parse()?,
                seconds: seconds.parse()?,
                at_limit: status == "limit",
            });
    }
    Ok(families)
}

fn draw(
    path: &str,
    title: &str,
    axis: &str,
    lines: &BTreeMap<String, Vec<Point>>,
) -> Result<(), Box<dyn Error>> {
    let points = lines.values().flatten();
    let (min_size, max_size) = points.clone().fold((f64::MAX, 0f64), |(lo, hi), p| {
        (lo.min(p.size), hi.max(p.size))
    });
    let fastest = points
        .clone()
        .map(|p| p.seconds)
        .fold(f64::MAX, f64::min)
        .max(1e-3);
    let slowest = points.map(|p| p.seconds).fold(0f64, f64::max);
    let root = SVGBackend::new(path, (760, 460)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            min_size..max_size,
            (fastest / 1.5..slowest * 1.5).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc(axis)
        // Sizes are whole numbers: no label between two of them.
        .x_labels(((max_size - min_size) as usize + 1).min(13))
        .x_label_formatter(&|size| format!("{}", size.round() as i64))
        .y_desc("seconds (whole process)")
        .draw()?;
    for (line, points) in lines {
        let style = colour(line);
        let finished: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| !p.at_limit)
            .map(|p| (p.size, p.seconds))
            .collect();
        chart
            .draw_series(LineSeries::new(finished.clone(), style.stroke_width(2)))?
            .label(line.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], style.stroke_width(2))
            });
        chart.draw_series(
            finished
                .iter()
                .map(|&at| Circle::new(at, 3, style.filled())),
        )?;
        chart.draw_series(
            points
                .iter()
                .filter(|p| p.at_limit)
                .map(|p| Cross::new((p.size, p.seconds), 6, style.stroke_width(2))),
        )?;
    }
    // The legend says once what a cross means.
    chart
        .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
        .label("x: no answer within the time limit")
        .legend(|(x, y)| Cross::new((x + 9, y), 5, BLACK.stroke_width(2)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [csv_path, out, described @ ..] = &arguments[..] else {
        return Err("usage: draw-charts CSV OUT-DIR [FAMILY=TITLE|AXIS ...]".into());
    };
    let descriptions: BTreeMap<&str, (&str, &str)> = described
        .iter()
        .filter_map(|d| {
            let (family, rest) = d.split_once('=')?;
            let (title, axis) = rest.split_once('|')?;
            Some((family, (title, axis)))
        })
        .collect();
    std::fs::create_dir_all(out)?;
    for (family, lines) in read(csv_path)? {
        let (title, axis) = descriptions
            .get(family.as_str())
            .copied()
            .unwrap_or((family.as_str(), "size"));
        let path = format!("{out}/{family}.svg");
        draw(&path, title, axis, &lines)?;
        println!("{path}");
    }
    Ok(())
}
