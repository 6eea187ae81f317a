//! Work run off the JavaScript thread for a history: the manager's estimate, the working set and
//! `analyze`.

use napi_derive::napi;
use serde_json::Value;

use super::codec::*;
use super::*;
use context_condense::condense::Options;
use context_condense::tokens::Encoding;

pub struct EstimateTask {
    pub(super) messages: Vec<Message>,
    pub(super) options: Options,
    pub(super) pricing: Option<context_condense::cost::Pricing>,
    pub(super) with_model: bool,
}

#[napi]
impl Task for EstimateTask {
    type Output = Result<Value>;
    type JsValue = Json;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let e = context_condense::manager::estimate(
                &self.messages,
                &self.options,
                self.pricing.as_ref(),
                self.options.encoding,
                self.with_model,
            );
            Ok(serde_json::to_value(e).unwrap_or(Value::Null))
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Json> {
        let output = output.map_err(|e| rejection(&env, e))?;
        Ok(Json(output))
    }
}

pub struct WorkingSetTask {
    pub(super) messages: Vec<Message>,
    pub(super) config: Value,
    pub(super) with_text: bool,
    pub(super) encoding: Encoding,
}

#[napi]
impl Task for WorkingSetTask {
    type Output = Result<Value>;
    type JsValue = Json;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            context_condense::working_set::of_history(&self.messages, &self.config, self.with_text, self.encoding)
                .map(Value::from)
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Json> {
        let output = output.map_err(|e| rejection(&env, e))?;
        Ok(Json(output))
    }
}

pub struct AnalyzeTask {
    pub(super) messages: std::sync::Arc<Vec<Message>>,
    pub(super) encoding: Encoding,
}

#[napi]
impl Task for AnalyzeTask {
    type Output = Result<Value>;
    type JsValue = Json;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            Ok(serde_json::to_value(context_condense::analyze::analyze(&self.messages, self.encoding))
                .unwrap_or(Value::Null))
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Json> {
        let output = output.map_err(|e| rejection(&env, e))?;
        Ok(Json(output))
    }
}
