// SPDX-License-Identifier: GPL-2.0-only
// TransformerConfig: validation, its JSON form, and the closed-form parameter and byte
// counts (TransformerTraceGenerator::ParseConfig, ::Count). The trace itself is written
// in transformer-trace-generator.cc.
#include "json-text.h"
#include "parameter-server-sync.h"
#include "transformer-trace-generator.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>

namespace ns3
{

// ------------------------------------------------------------------ config

uint64_t
TransformerConfig::GetFfn() const
{
    return ffnHidden == 0 ? 4 * hidden : ffnHidden;
}

uint64_t
TransformerConfig::GetKvWidth() const
{
    return kvHeads == 0 || heads == 0 ? hidden : hidden * kvHeads / heads;
}

uint32_t
TransformerConfig::GetNRanks() const
{
    return tp * pp * dp;
}

uint32_t
TransformerConfig::GetMicroBatches() const
{
    return (microBatch == 0 || dp == 0)
               ? 0
               : static_cast<uint32_t>(globalBatch / (static_cast<uint64_t>(microBatch) * dp));
}

bool
TransformerConfig::Validate(std::string* reason) const
{
    std::ostringstream why;
    auto fail = [&]() {
        if (reason)
        {
            *reason = why.str();
        }
        return false;
    };
    if (kind != "transformer" && kind != "cnn")
    {
        why << "kind must be \"transformer\" or \"cnn\", got \"" << kind << "\"";
        return fail();
    }
    if (tp == 0 || pp == 0 || dp == 0 || ep == 0 || layers == 0 || microBatch == 0 ||
        globalBatch == 0 || seqLength == 0 || hidden == 0 || heads == 0 || vocab == 0)
    {
        why << "tp, pp, dp, ep, layers, microBatch, globalBatch, seqLength, hidden, heads and "
               "vocab must all be at least 1";
        return fail();
    }
    if (static_cast<uint64_t>(tp) * pp * dp > (1u << 20))
    {
        why << "tp x pp x dp = " << static_cast<uint64_t>(tp) * pp * dp << " ranks; at most 2^20";
        return fail();
    }
    if (static_cast<uint64_t>(microBatch) * dp > globalBatch ||
        globalBatch % (static_cast<uint64_t>(microBatch) * dp) != 0)
    {
        why << "globalBatch " << globalBatch
            << " is not a multiple of microBatch x dp = " << static_cast<uint64_t>(microBatch) * dp;
        return fail();
    }
    if (layers % pp != 0)
    {
        why << "layers " << layers << " do not split evenly over pp = " << pp << " stages";
        return fail();
    }
    if (kind == "cnn")
    {
        if (!ValidateCnn(why))
        {
            return fail();
        }
    }
    else if (!ValidateTransformer(why))
    {
        return fail();
    }
    if (zeroStage > 3 || gradBytes == 0 || paramBytes == 0 || activationBytes == 0 ||
        bucketParams == 0)
    {
        why << "zeroStage must be 0..3 and gradBytes, paramBytes, activationBytes, "
               "bucketParams positive";
        return fail();
    }
    const ParameterServerSync::Placement placement = parameterServerPlacement;
    const uint32_t most =
        placement == ParameterServerSync::COLOCATED ? dp : ParameterServerSync::MAX_CPU_SERVERS;
    if (gpusPerServer > ParameterServerSync::MAX_GPUS_PER_SERVER)
    {
        why << "gpusPerServer must be at most " << ParameterServerSync::MAX_GPUS_PER_SERVER
            << ", got " << gpusPerServer;
        return fail();
    }
    if (parameterServers > 0 && (zeroStage != 0 || dp < 2 || parameterServers > most))
    {
        // Parameter servers take the gradients' all-reduce; ZeRO has none to take.
        why << "parameterServers " << parameterServers
            << " needs zeroStage 0 and 2 or more DP ranks, at most "
            << (placement == ParameterServerSync::COLOCATED ? "dp (" + std::to_string(dp) + ")"
                                                            : std::to_string(most) + " CPU hosts");
        return fail();
    }

    return true;
}

bool
TransformerConfig::ValidateCnn(std::ostringstream& why) const
{
    if (tp != 1 || pp != 1 || ep != 1 || experts != 0)
    {
        why << "a cnn is data-parallel only: tp, pp, ep must be 1 and experts 0";
        return false;
    }
    if (cnnParameters == 0 || cnnFlopsPerSample <= 0)
    {
        why << "a cnn needs cnnParameters > 0 and cnnFlopsPerSample > 0";
        return false;
    }
    return true;
}

bool
TransformerConfig::ValidateTransformer(std::ostringstream& why) const
{
    if (kvHeads != 0 && (heads % kvHeads != 0 || kvHeads % tp != 0))
    {
        why << "kvHeads " << kvHeads << " must divide heads " << heads << " and be divisible by tp "
            << tp;
        return false;
    }
    if (hidden % heads != 0 || heads % tp != 0)
    {
        why << "heads " << heads << " must divide hidden " << hidden << " and be divisible by tp "
            << tp;
        return false;
    }
    if (dp % ep != 0)
    {
        why << "ep " << ep << " must divide dp " << dp;
        return false;
    }
    if (experts > 0 && (experts % ep != 0 || topK == 0 || topK > experts || moeEvery == 0))
    {
        why << "experts " << experts << " must be a multiple of ep " << ep
            << ", and 1 <= topK <= experts, moeEvery >= 1";
        return false;
    }
    if (experts == 0 && ep != 1)
    {
        why << "ep " << ep << " needs experts > 0";
        return false;
    }
    return true;
}

// ------------------------------------------------------------------ JSON config

namespace
{

using Json = nlohmann::json;

/// Set field from v (key in source): an integer in the field's range, or a non-negative
/// number; false with error set otherwise.
template <typename T>
bool
ReadNumber(const std::string& key,
           const Json& v,
           const std::string& source,
           T& field,
           std::string* error)
{
    if constexpr (std::is_integral_v<T>)
    {
        // Integers only, within the field's range: 2.5 or 2^32 + 2 are errors,
        // not silently 2.
        if (!v.is_number_integer() || v.get<int64_t>() < 0 ||
            v.get<uint64_t>() > std::numeric_limits<T>::max())
        {
            *error = source + ": '" + key + "' must be a non-negative integer up to " +
                     std::to_string(std::numeric_limits<T>::max()) + ", got " + v.dump();
            return false;
        }
    }
    else if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
    {
        *error = source + ": '" + key + "' must be a non-negative number, got " + v.dump();
        return false;
    }
    field = v.get<T>();
    return true;
}

/// Set the setting key of c from v; false with error set if key or v is wrong.
bool
ReadSetting(const std::string& key,
            const Json& v,
            const std::string& source,
            TransformerConfig& c,
            std::string* error)
{
    auto number = [&](auto& field) { return ReadNumber(key, v, source, field, error); };
    bool ok = true;
    if (key == "name" || key == "kind")
    {
        if (!v.is_string())
        {
            *error = source + ": '" + key + "' must be a string, got " + v.dump();
            return false;
        }
        (key == "name" ? c.name : c.kind) = v.get<std::string>();
    }
    else if (key == "parameterServerPlacement")
    {
        if (!v.is_string())
        {
            *error = source + ": '" + key + "' must be a string, got " + v.dump();
            return false;
        }
        if (!ParameterServerSync::PlacementFromString(v.get<std::string>(),
                                                      &c.parameterServerPlacement))
        {
            *error = source + ": '" + key + "' must be one of " +
                     ParameterServerSync::GetPlacementNames() + ", got " + v.dump();
            return false;
        }
    }
    else if (key == "gpusPerServer")
        ok = number(c.gpusPerServer);
    else if (key == "sequenceParallel" || key == "gatedMlp")
    {
        if (!v.is_boolean())
        {
            *error = source + ": '" + key + "' must be true or false, got " + v.dump();
            return false;
        }
        (key == "gatedMlp" ? c.gatedMlp : c.sequenceParallel) = v.get<bool>();
    }
    else if (key == "kvHeads")
        ok = number(c.kvHeads);
    else if (key == "layers")
        ok = number(c.layers);
    else if (key == "hidden")
        ok = number(c.hidden);
    else if (key == "heads")
        ok = number(c.heads);
    else if (key == "ffnHidden")
        ok = number(c.ffnHidden);
    else if (key == "seqLength")
        ok = number(c.seqLength);
    else if (key == "vocab")
        ok = number(c.vocab);
    else if (key == "microBatch")
        ok = number(c.microBatch);
    else if (key == "globalBatch")
        ok = number(c.globalBatch);
    else if (key == "tp")
        ok = number(c.tp);
    else if (key == "pp")
        ok = number(c.pp);
    else if (key == "dp")
        ok = number(c.dp);
    else if (key == "ep")
        ok = number(c.ep);
    else if (key == "experts")
        ok = number(c.experts);
    else if (key == "topK")
        ok = number(c.topK);
    else if (key == "moeEvery")
        ok = number(c.moeEvery);
    else if (key == "zeroStage")
        ok = number(c.zeroStage);
    else if (key == "parameterServers")
        ok = number(c.parameterServers);
    else if (key == "bucketParams")
        ok = number(c.bucketParams);
    else if (key == "gradBytes")
        ok = number(c.gradBytes);
    else if (key == "paramBytes")
        ok = number(c.paramBytes);
    else if (key == "activationBytes")
        ok = number(c.activationBytes);
    else if (key == "cnnParameters")
        ok = number(c.cnnParameters);
    else if (key == "cnnFlopsPerSample")
        ok = number(c.cnnFlopsPerSample);
    else
    {
        *error = source + ": unknown setting '" + key + "'";
        return false;
    }
    return ok;
}

} // namespace

bool
TransformerTraceGenerator::ParseConfig(const std::string& text,
                                       const std::string& source,
                                       TransformerConfig& c,
                                       std::string* error)
{
    Json doc;
    if (!JsonText::Parse(text, source, &doc, error))
    {
        return false;
    }
    if (!doc.is_object())
    {
        *error = source + ": expected an object of model settings";
        return false;
    }
    for (auto it = doc.begin(); it != doc.end(); ++it)
    {
        if (!ReadSetting(it.key(), it.value(), source, c, error))
        {
            return false;
        }
    }
    std::string why;
    if (!c.Validate(&why))
    {
        *error = source + ": " + why;
        return false;
    }
    return true;
}

// ------------------------------------------------------------------ counts

TransformerCounts
TransformerTraceGenerator::Count(const TransformerConfig& c)
{
    TransformerCounts n;
    const uint64_t h = c.hidden;
    const uint64_t f = c.GetFfn();
    const uint64_t kv = c.GetKvWidth();
    n.attentionParams = 2 * h * h + 2 * h * kv + 2 * h + 2 * kv;
    n.expertParams = c.gatedMlp ? 3 * h * f : 2 * h * f + f + h;
    n.denseLayerParams = n.attentionParams + 4 * h + n.expertParams;
    n.moeLayerParams = n.attentionParams + 4 * h + h * c.experts + c.experts * n.expertParams;
    n.embeddingParams = c.vocab * h + c.seqLength * h;
    if (c.kind == "cnn")
    {
        n.totalParams = c.cnnParameters;
    }
    else
    {
        for (uint32_t l = 0; l < c.layers; ++l)
        {
            const bool moe = c.experts > 0 && (l + 1) % c.moeEvery == 0;
            n.totalParams += moe ? n.moeLayerParams : n.denseLayerParams;
        }
        n.totalParams += n.embeddingParams + 2 * h;
    }
    const uint64_t tokens = static_cast<uint64_t>(c.microBatch) * c.seqLength;
    n.tpActivationBytes = tokens * h * c.activationBytes;
    // With sequence parallelism each TP rank holds s/tp of the sequence, and that is
    // what it sends to the next stage (Megatron-Core).
    n.ppActivationBytes = tokens * h * c.activationBytes / (c.sequenceParallel ? c.tp : 1);
    n.epAllToAllBytes = tokens * h * c.topK * c.activationBytes;
    return n;
}

} // namespace ns3
