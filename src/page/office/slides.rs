//! PowerPoint: the slides in the presentation's order (its `p:sldIdLst`, else the
//! slide parts by number), at most [`MAX_SLIDES`], each followed by its speaker notes.

use super::package::{attribute, Handler, Package, Relationship};
use super::text::{Flow, Text};
use super::MAX_SLIDES;
use quick_xml::events::BytesStart;
use std::collections::HashMap;
use std::io::{Read, Seek};

/// The slides in the presentation's order, each with its speaker notes.
pub(super) fn read<R: Read + Seek>(
    package: &mut Package<R>,
    main: &str,
    text: &mut Text,
) -> Result<(), &'static str> {
    const SKIP: &[&str] = &["Fallback", "fld"];
    let rels: HashMap<String, Relationship> = package
        .relationships(main)
        .into_iter()
        .map(|r| (r.id.clone(), r))
        .collect();
    let mut list = SlideList::default();
    package.read_required(main, &[], &mut list)?;
    let mut slides: Vec<String> = list
        .ids
        .iter()
        .filter_map(|id| rels.get(id))
        .filter(|r| r.kind == "slide")
        .map(|r| r.target.clone())
        .collect();
    if slides.is_empty() {
        slides = package
            .names
            .numbered("ppt/slides/slide", ".xml", MAX_SLIDES + 1);
    }
    for (i, slide) in slides.iter().enumerate() {
        if i == MAX_SLIDES {
            package.cut = true;
            break;
        }
        if text.full() || package.spent() {
            break;
        }
        package.read_optional(slide, SKIP, &mut Flow::new(text));
        text.close_all();
        let notes = package
            .relationships(slide)
            .into_iter()
            .find(|r| r.kind == "notesSlide");
        if let Some(notes) = notes {
            package.read_optional(&notes.target, SKIP, &mut Flow::new(text));
            text.close_all();
        }
    }
    Ok(())
}

/// The relationship ids of a presentation's slides, in its order (`p:sldIdLst`).
#[derive(Default)]
struct SlideList {
    inside: bool,
    ids: Vec<String>,
}

impl Handler for SlideList {
    fn start(&mut self, element: &BytesStart<'_>, name: &str) {
        match name {
            "sldIdLst" => self.inside = true,
            "sldId" if self.inside && self.ids.len() <= MAX_SLIDES => {
                self.ids.extend(attribute(element, "id", true));
            }
            _ => {}
        }
    }

    fn end(&mut self, name: &str) {
        if name == "sldIdLst" {
            self.inside = false;
        }
    }

    fn text(&mut self, _: &str) {}
}
