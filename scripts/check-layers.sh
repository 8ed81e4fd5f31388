#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Checks that every include points down the module's layers, lowest first:
#   fabric < rdma < ina < nvlink < transport < collective < workload
#   < helper/text < helper/fabric < helper/training
# (the folders model/<layer>/ and helper/<part>/: the option and text parsing every
# program uses, the ns-3 helpers that install the models, the training application
# behind ai-fabric-sim). A file may include headers of its own layer and of lower ones.
# Quoted includes are mapped back to the repository file they name:
# "ns3/<name>.h" to the header of that name in model/<layer>/ or helper/<part>/ (headers are
# installed flat), a relative "x.h" to the file beside the includer; ns-3's own headers
# and <...> includes are not the module's and are ignored.
#
# Prints one line per violation (file:line, the include, the two layers) and exits 1 if
# there is any; a folder of model/ that is not a known layer is a violation too.
# Usage: scripts/check-layers.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

layers=(fabric rdma ina nvlink transport collective workload helper/text helper/fabric helper/training)
declare -A order   # layer -> position, lowest first
declare -A layerOf # header file name -> layer
folderOf() { [[ $1 == helper/* ]] && echo "$1" || echo "model/$1"; }
for i in "${!layers[@]}"; do
    order[${layers[$i]}]=$i
done
for layer in "${layers[@]}"; do
    for header in "$(folderOf "$layer")"/*.h; do
        [[ -e $header ]] && layerOf[${header##*/}]=$layer
    done
done

violations=0
files=0
for folder in model/*/; do
    folder=${folder%/}
    if [[ -z ${order[${folder#model/}]:-} ]]; then
        echo "$folder: not a known layer (${layers[*]})"
        violations=$((violations + 1))
    fi
done

for folder in helper/*/; do
    folder=${folder%/}
    if [[ -z ${order[$folder]:-} ]]; then
        echo "$folder: not a known layer (${layers[*]})"
        violations=$((violations + 1))
    fi
done
for file in helper/*.h helper/*.cc; do
    [[ -e $file ]] || continue
    echo "$file: outside helper's parts (helper/text, helper/fabric, helper/training)"
    violations=$((violations + 1))
done

for layer in "${layers[@]}"; do
    folder=$(folderOf "$layer")
    for file in "$folder"/*.h "$folder"/*.cc; do
        [[ -e $file ]] || continue
        files=$((files + 1))
        while IFS=: read -r line text; do
            [[ $text =~ include[[:space:]]*\"([^\"]+)\" ]] || continue
            include=${BASH_REMATCH[1]}
            target=
            if [[ $include == ns3/* ]]; then
                target=${layerOf[${include#ns3/}]:-} # empty: one of ns-3's own headers
            elif [[ $include != */* && -e $folder/$include ]]; then
                target=$layer
            elif [[ -e $folder/$include ]]; then
                resolved=$(realpath --relative-to=. "$folder/$include")
                case $resolved in
                helper/*/*) target=${resolved%/*} ;;
                model/*/*) target=${resolved#model/} && target=${target%%/*} ;;
                esac
            else
                target=${layerOf[${include##*/}]:-}
            fi
            [[ -n $target && -n ${order[$target]:-} ]] || continue
            if ((order[$target] > order[$layer])); then
                echo "$file:$line: #include \"$include\": $layer includes $target, a higher layer"
                violations=$((violations + 1))
            fi
        done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
    done
done

if ((violations > 0)); then
    echo "check-layers: $violations violation(s); layers, lowest first: ${layers[*]}" >&2
    exit 1
fi
order=$(printf ' < %s' "${layers[@]}")
echo "check-layers: $files files, every include points down (${order:3})"
